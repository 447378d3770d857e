package conform

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/conform/body"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/tree"
)

// Api keys of the requests that create and delete conform's resources.
const (
	createTopicsKey, deleteTopicsKey, deleteGroupsKey = 19, 20, 42
	apiVersionsKey                                    = 18
	// unsupportedVersion is UNSUPPORTED_VERSION.
	unsupportedVersion = 35
)

// cleanupTimeout bounds the deletion of conform's resources at the end of
// a run (also a cancelled one).
const cleanupTimeout = 20 * time.Second

// create makes the resources the mutating bodies name: the topic
// <prefix> (one partition, the target's default replication) whose id it
// learns; the group <prefix>-group and transactional id <prefix>-txn are
// named only (the probes create them, if the target keeps them).
func (e *engine) create(ctx context.Context) error {
	prefix := e.o.Prefix
	if prefix == "" {
		prefix = newPrefix()
	}
	e.names = body.Names{Prefix: prefix, Topic: prefix, Group: prefix + "-group", TransactionalID: prefix + "-txn"}
	if _, ok := e.versions[createTopicsKey]; !ok {
		return fmt.Errorf("create topic %s: the target does not announce CreateTopics", prefix)
	}
	rf := -1
	m := e.o.Set.Request(createTopicsKey)
	v, err := e.conn.Negotiate(m)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", prefix, err)
	}
	if v < 4 { // KIP-464 defaults (-1) from v4 on
		rf = 1
	}
	js := fmt.Sprintf(`{"topics":[{"name":%s,"numPartitions":1,"replicationFactor":%d,"assignments":[],"configs":[]}],"timeoutMs":15000`, strconv.Quote(prefix), rf)
	if v >= 1 {
		js += `,"validateOnly":false`
	}
	bt, err := codec.FromJSON([]byte(js+"}"), m, v)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", prefix, err)
	}
	e.r.Created = append(e.r.Created, "topic "+prefix)
	x, err := e.conn.Call(ctx, m, v, bt)
	if err != nil {
		e.conn = nil
		return fmt.Errorf("create topic %s: %w", prefix, err)
	}
	topic := x.Response.At(x.Response.Part(tree.Body)).Field("Topics").Elem(0)
	if err := topic.Err(); err != nil {
		return fmt.Errorf("create topic %s: %w", prefix, err)
	}
	if code := topic.Field("ErrorCode").Int(); code != 0 {
		return fmt.Errorf("create topic %s: %s", prefix, flow.ErrorCode{Code: int16(code), Name: flow.ErrorName(int16(code))})
	}
	if id := topic.Field("TopicId"); id.Err() == nil {
		e.names.TopicID = id.UUID()
	}
	return nil
}

// cleanup deletes what create made and the group the probes may have
// made, on a connection of its own when the run's is gone, with a context
// that outlives ctx's cancellation (Ctrl-C). Problems go to Report.Cleanup.
func (e *engine) cleanup(ctx context.Context) {
	if e.names.Prefix == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	conn := e.conn
	if conn == nil {
		c, err := client.Dial(cctx, e.o.Bootstrap, e.cd, e.o.Client)
		if err != nil {
			e.r.Cleanup = append(e.r.Cleanup, fmt.Sprintf("deleting %s*: %v", e.names.Prefix, err))
			return
		}
		conn = c
		e.conn = c
	}
	del := func(key int16, what string, js func(v int16) string) {
		if _, ok := e.versions[key]; !ok {
			e.r.Cleanup = append(e.r.Cleanup, fmt.Sprintf("deleting %s: the target does not announce %s", what, e.o.Set.Request(key).BaseName()))
			return
		}
		m := e.o.Set.Request(key)
		v, err := conn.Negotiate(m)
		if err == nil {
			var bt *tree.Tree
			if bt, err = codec.FromJSON([]byte(js(v)), m, v); err == nil {
				var x *client.Exchange
				if x, err = conn.Call(cctx, m, v, bt); err == nil {
					for _, c := range flow.ErrorCodes(x.Response) {
						switch c.Name {
						case "UNKNOWN_TOPIC_OR_PARTITION", "UNKNOWN_TOPIC_ID", "GROUP_ID_NOT_FOUND":
						default:
							err = fmt.Errorf("%s at %s", c, c.Path)
						}
					}
				}
			}
		}
		if err != nil {
			e.r.Cleanup = append(e.r.Cleanup, fmt.Sprintf("deleting %s: %v", what, err))
		} else {
			e.r.Deleted = append(e.r.Deleted, what)
		}
	}
	for _, name := range append([]string{e.names.Topic}, e.extra...) {
		topic := strconv.Quote(name)
		del(deleteTopicsKey, "topic "+name, func(v int16) string {
			if v >= 6 {
				return `{"topics":[{"name":` + topic + `,"topicId":"AAAAAAAAAAAAAAAAAAAAAA"}],"timeoutMs":15000}`
			}
			return `{"topicNames":[` + topic + `],"timeoutMs":15000}`
		})
	}
	run := conn
	for _, g := range append([]string{e.names.Group}, e.groups...) {
		gc, found, err := e.coordinator(cctx, run, g)
		switch {
		case err != nil:
			e.r.Cleanup = append(e.r.Cleanup, fmt.Sprintf("deleting group %s: %v", g, err))
		case found:
			if gc != run {
				defer gc.Close()
			}
			conn = gc
			del(deleteGroupsKey, "group "+g, func(int16) string {
				return `{"groupsNames":[` + strconv.Quote(g) + `]}`
			})
		}
	}
}

// coordinator returns a connection to the coordinator of group g (conn
// when it is the node conn is connected to). found is false when the target
// has no coordinator for it (COORDINATOR_NOT_AVAILABLE: no group was ever
// made there) or does not announce FindCoordinator.
func (e *engine) coordinator(ctx context.Context, conn *client.Conn, g string) (*client.Conn, bool, error) {
	m := e.o.Set.Request(10)
	if _, ok := e.versions[10]; !ok || m == nil {
		return nil, false, nil
	}
	v, err := conn.Negotiate(m)
	if err != nil {
		return nil, false, err
	}
	js := `{"key":` + strconv.Quote(g) + `,"keyType":0}`
	if v >= 4 {
		js = `{"keyType":0,"coordinatorKeys":[` + strconv.Quote(g) + `]}`
	}
	bt, err := codec.FromJSON([]byte(js), m, v)
	if err != nil {
		return nil, false, err
	}
	x, err := conn.Call(ctx, m, v, bt)
	if err != nil {
		return nil, false, err
	}
	c := x.Response.At(x.Response.Part(tree.Body))
	if v >= 4 {
		c = c.Field("Coordinators").Elem(0)
	}
	if err := c.Err(); err != nil {
		return nil, false, err
	}
	switch code := int16(c.Field("ErrorCode").Int()); code {
	case 0:
	case 15: // COORDINATOR_NOT_AVAILABLE
		return nil, false, nil
	default:
		return nil, false, fmt.Errorf("FindCoordinator: %s", flow.ErrorCode{Code: code, Name: flow.ErrorName(code)})
	}
	addr := net.JoinHostPort(c.Field("Host").String(), strconv.Itoa(int(c.Field("Port").Int())))
	if addr == conn.Addr() {
		return conn, true, nil
	}
	gc, err := client.Dial(ctx, addr, e.cd, e.o.Client)
	if err != nil {
		return nil, false, err
	}
	return gc, true, nil
}
