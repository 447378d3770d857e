// Package kafkatest starts real Apache Kafka nodes (KRaft brokers and
// controllers, from the jars interop/kafka/install.sh fetches from Maven
// Central) for kwire's live tests, on loopback, each in its own JVM with its
// own data directory under the test's temporary directory.
//
// Tests call Require (or Start, which calls it): when Kafka is not installed
// the test is skipped with a message saying how to install it, unless the
// environment sets KWIRE_KAFKA_REQUIRED=1 (CI does), which turns the skip
// into a failure. The class path comes from the file named by
// KWIRE_KAFKA_CLASSPATH, else interop/kafka/target/classpath.txt of the
// module. Java is taken from JAVA_HOME when set, else from PATH.
//
// Nodes are configured with static voters (controller.quorum.voters) so that
// a test may point each voter's endpoint at an address of its choosing (a
// kwire proxy in front of the real controller): Config.VoterAddr.
//
// Brokers always have a PLAINTEXT listener (the one they use between
// themselves and the one Node.BrokerAddr names); Config.Listeners adds SSL
// and SASL_SSL listeners (SASL PLAIN and SCRAM-SHA-512) with certificates
// made at test time (internal/testcert).
package kafkatest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/client"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/testcert"
	"github.com/kwire/kwire/spec"
)

// Names of the broker listeners kafkatest can open (Kafka's listener and
// security protocol names).
const (
	// Plaintext is the listener every broker has, used between brokers.
	Plaintext = "PLAINTEXT"
	// SSL is a TLS listener without authentication.
	SSL = "SSL"
	// SASLSSL is a TLS listener with SASL authentication: PLAIN and
	// SCRAM-SHA-512.
	SASLSSL = "SASL_SSL"
)

// Required reports whether KWIRE_KAFKA_REQUIRED asks for missing Kafka to
// fail tests rather than skip them.
func Required() bool { return os.Getenv("KWIRE_KAFKA_REQUIRED") == "1" }

// ClassPathFile returns the path of the class path file: KWIRE_KAFKA_CLASSPATH,
// else <module root>/interop/kafka/target/classpath.txt.
func ClassPathFile() string {
	if f := os.Getenv("KWIRE_KAFKA_CLASSPATH"); f != "" {
		return f
	}
	return filepath.Join(targetDir(), "classpath.txt")
}

// ReleaseClassPathFile returns the class path file of a second Kafka
// release installed beside the live tests' broker by
// `interop/kafka/install.sh RELEASE`: <module root>/interop/kafka/target/
// classpath-RELEASE.txt (release such as "3.9.1").
func ReleaseClassPathFile(release string) string {
	return filepath.Join(targetDir(), "classpath-"+release+".txt")
}

// targetDir is <module root>/interop/kafka/target.
func targetDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "interop", "kafka", "target")
}

// Require returns the Kafka class path, or skips the test (fails it when
// KWIRE_KAFKA_REQUIRED=1) when Kafka or java is not installed.
func Require(t testing.TB) string {
	t.Helper()
	return require(t, ClassPathFile(), "interop/kafka/install.sh")
}

// RequireRelease is Require for a second release (Config.Release), installed
// by `interop/kafka/install.sh RELEASE`.
func RequireRelease(t testing.TB, release string) string {
	t.Helper()
	return require(t, ReleaseClassPathFile(release), "interop/kafka/install.sh "+release)
}

func require(t testing.TB, cpFile, install string) string {
	t.Helper()
	miss := func(why string) string {
		msg := "real Kafka not available: " + why + " (run " + install + "; KWIRE_KAFKA_REQUIRED=1 makes this a failure)"
		if Required() {
			t.Fatal(msg)
		}
		skips.Lock()
		skips.n++
		skips.why = why
		skips.Unlock()
		t.Skip(msg)
		return ""
	}
	b, err := os.ReadFile(cpFile)
	if err != nil {
		return miss(err.Error())
	}
	if _, err := exec.LookPath(javaBin()); err != nil {
		return miss("java: " + err.Error())
	}
	return strings.TrimSpace(string(b))
}

func javaBin() string {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return filepath.Join(h, "bin", "java")
	}
	return "java"
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Config describes a cluster to start.
type Config struct {
	// Controllers is the number of dedicated KRaft controllers (node ids
	// 1..Controllers). 0 starts one combined node (process.roles
	// broker,controller, node id 1) and no separate brokers.
	Controllers int
	// Brokers is the number of brokers beside dedicated controllers (node
	// ids after the controllers); at least 1 when Controllers > 0.
	Brokers int
	// ControllerPorts, when set, are the real controller listener ports
	// (one per controller; else free ports are chosen). Tests that put
	// proxies in front of controllers choose them first.
	ControllerPorts []int
	// VoterAddr returns the address the others reach controller id at, given
	// its real listener address; nil means the real address.
	VoterAddr func(id int, real string) string
	// Props are extra server properties for every node.
	Props map[string]string
	// Heap is the JVM heap of each node (-Xmx, default "384m").
	Heap string
	// Listeners are the listeners brokers have beside PLAINTEXT: SSL,
	// SASLSSL (each at most once).
	Listeners []string
	// CA signs the brokers' certificates (one per broker, for 127.0.0.1
	// and localhost) when Listeners has SSL or SASL_SSL; nil makes a CA
	// (Cluster.CA).
	CA *testcert.CA
	// PlainUsers are the SASL/PLAIN users of the SASL_SSL listener and
	// ScramUsers its SCRAM-SHA-512 users (name → password), the latter
	// created when the nodes are formatted (kafka-storage format
	// --add-scram). Names and passwords are letters, digits and dashes.
	PlainUsers, ScramUsers map[string]string
	// AdvertisedAddr returns the address broker id advertises for a
	// listener (Plaintext, SSL, SASLSSL), given the listener's real
	// address; nil (or "" returned) means the real address. Tests that
	// put something in front of a broker's listener start it here. The
	// PLAINTEXT listener is always advertised at its real address: the
	// brokers and kafkatest itself use it.
	AdvertisedAddr func(id int, listener, real string) string
	// Release, when not "", starts that Kafka release (such as "3.9.1")
	// from the class path `interop/kafka/install.sh RELEASE` wrote, instead
	// of the live tests' broker (RequireRelease).
	Release string
}

// Node is one Kafka JVM.
type Node struct {
	ID int
	// Roles is process.roles: "broker", "controller" or "broker,controller".
	Roles string
	// Dir holds server.properties, the log directory data/ and the node's
	// output in node.log.
	Dir string
	// BrokerAddr is the broker's PLAINTEXT listener (empty for a
	// controller); ControllerAddr the real controller listener (empty for
	// a broker).
	BrokerAddr, ControllerAddr string
	// Listeners are the broker's listener addresses by listener name
	// (Plaintext, SSL, SASLSSL): where the broker really listens (nil for
	// a controller).
	Listeners map[string]string
	// Advertised are the addresses the broker advertises, by listener
	// name (Config.AdvertisedAddr).
	Advertised map[string]string

	cp   string
	heap string
	t    testing.TB
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Cluster is a started set of nodes.
type Cluster struct {
	ClusterID string
	Nodes     []*Node
	// Bootstrap is the first broker's address.
	Bootstrap string
	// Voters is the controller.quorum.voters value the nodes were given.
	Voters string
	// CA signed the brokers' certificates (nil without SSL or SASL_SSL
	// listeners): clients trust CA.CertFile.
	CA *testcert.CA
}

// Brokers returns the nodes that are brokers, in node id order.
func (c *Cluster) Brokers() []*Node {
	var b []*Node
	for _, n := range c.Nodes {
		if n.BrokerAddr != "" {
			b = append(b, n)
		}
	}
	return b
}

// Start formats and starts the nodes of cfg and waits until every broker
// answers Metadata with itself registered and every controller answers
// ApiVersions. Nodes are stopped (SIGKILL) when the test ends; their logs
// are kept in KWIRE_ARTIFACTS/<test>/ when that variable is set, and the
// tail of each log is printed when the test failed.
func Start(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	var cp string
	if cfg.Release != "" {
		cp = RequireRelease(t, cfg.Release)
	} else {
		cp = Require(t)
	}
	if cfg.Heap == "" {
		cfg.Heap = "384m"
	}
	root := t.TempDir()
	c := &Cluster{ClusterID: newClusterID()}

	type spec struct {
		id    int
		roles string
	}
	var specs []spec
	if cfg.Controllers == 0 {
		specs = []spec{{1, "broker,controller"}}
	} else {
		for i := 1; i <= cfg.Controllers; i++ {
			specs = append(specs, spec{i, "controller"})
		}
		nb := max(cfg.Brokers, 1)
		for i := 0; i < nb; i++ {
			specs = append(specs, spec{cfg.Controllers + 1 + i, "broker"})
		}
	}
	var voters []string
	ci := 0
	for _, s := range specs {
		n := &Node{ID: s.id, Roles: s.roles, Dir: filepath.Join(root, fmt.Sprintf("node-%d", s.id)), cp: cp, heap: cfg.Heap, t: t}
		if strings.Contains(s.roles, "controller") {
			port := 0
			if ci < len(cfg.ControllerPorts) {
				port = cfg.ControllerPorts[ci]
			} else {
				port = FreePort(t)
			}
			ci++
			n.ControllerAddr = fmt.Sprintf("127.0.0.1:%d", port)
			addr := n.ControllerAddr
			if cfg.VoterAddr != nil {
				addr = cfg.VoterAddr(s.id, n.ControllerAddr)
			}
			voters = append(voters, fmt.Sprintf("%d@%s", s.id, addr))
		}
		if strings.Contains(s.roles, "broker") {
			n.BrokerAddr = fmt.Sprintf("127.0.0.1:%d", FreePort(t))
		}
		c.Nodes = append(c.Nodes, n)
	}
	c.Voters = strings.Join(voters, ",")
	for _, l := range cfg.Listeners {
		if l != SSL && l != SASLSSL {
			t.Fatalf("kafkatest: listener %q: want %s or %s", l, SSL, SASLSSL)
		}
	}
	if len(cfg.Listeners) > 0 {
		c.CA = cfg.CA
		if c.CA == nil {
			c.CA = testcert.New(t, "127.0.0.1", "localhost")
		}
	}
	for _, n := range c.Nodes {
		if n.BrokerAddr == "" {
			continue
		}
		n.Listeners = map[string]string{Plaintext: n.BrokerAddr}
		n.Advertised = map[string]string{Plaintext: n.BrokerAddr}
		for _, l := range cfg.Listeners {
			n.Listeners[l] = fmt.Sprintf("127.0.0.1:%d", FreePort(t))
			n.Advertised[l] = n.Listeners[l]
			if cfg.AdvertisedAddr != nil {
				if a := cfg.AdvertisedAddr(n.ID, l, n.Listeners[l]); a != "" {
					n.Advertised[l] = a
				}
			}
		}
	}
	for _, n := range c.Nodes {
		if err := n.configure(c, cfg); err != nil {
			t.Fatal(err)
		}
		if c.Bootstrap == "" && n.BrokerAddr != "" {
			c.Bootstrap = n.BrokerAddr
		}
	}
	t.Cleanup(func() { c.cleanup(t) })
	var wg sync.WaitGroup
	errs := make([]error, len(c.Nodes))
	for i, n := range c.Nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = n.format(c.ClusterID, cfg.ScramUsers); errs[i] == nil {
				errs[i] = n.start()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, n := range c.Nodes {
		if err := n.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (n *Node) configure(c *Cluster, cfg Config) error {
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return err
	}
	props := map[string]string{
		"process.roles":                                    n.Roles,
		"node.id":                                          fmt.Sprint(n.ID),
		"controller.quorum.voters":                         c.Voters,
		"controller.listener.names":                        "CONTROLLER",
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                                         filepath.Join(n.Dir, "data"),
		"offsets.topic.replication.factor":                 "1",
		"transaction.state.log.replication.factor":         "1",
		"transaction.state.log.min.isr":                    "1",
		"share.coordinator.state.topic.replication.factor": "1",
		"share.coordinator.state.topic.min.isr":            "1",
		"group.initial.rebalance.delay.ms":                 "0",
		"num.partitions":                                   "1",
		"auto.create.topics.enable":                        "false",
	}
	var listeners, advertised []string
	if n.BrokerAddr != "" {
		listeners = append(listeners, "PLAINTEXT://"+n.BrokerAddr)
		advertised = append(advertised, "PLAINTEXT://"+n.BrokerAddr)
		for _, l := range cfg.Listeners {
			listeners = append(listeners, l+"://"+n.Listeners[l])
			advertised = append(advertised, l+"://"+n.Advertised[l])
		}
		props["advertised.listeners"] = strings.Join(advertised, ",")
		props["inter.broker.listener.name"] = "PLAINTEXT"
		if len(cfg.Listeners) > 0 {
			props["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL"
			if err := n.tlsProps(c.CA, props); err != nil {
				return err
			}
		}
		if slices.Contains(cfg.Listeners, SASLSSL) {
			saslProps(cfg, props)
		}
	}
	if n.ControllerAddr != "" {
		listeners = append(listeners, "CONTROLLER://"+n.ControllerAddr)
	}
	props["listeners"] = strings.Join(listeners, ",")
	for k, v := range cfg.Props {
		props[k] = v
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, propEscaper.Replace(props[k]))
	}
	// The file holds private keys and SASL passwords.
	return os.WriteFile(filepath.Join(n.Dir, "server.properties"), b.Bytes(), 0o600)
}

// propEscaper escapes a value for a Java properties file (multi-line PEM
// values become one line).
var propEscaper = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r")

// tlsProps sets the node's TLS server properties: a certificate for
// 127.0.0.1 and localhost signed by ca, given inline (ssl.keystore.key
// and ssl.keystore.certificate.chain: a PEM key store file would need an
// encrypted key), and ca as the PEM trust store.
func (n *Node) tlsProps(ca *testcert.CA, props map[string]string) error {
	certFile, keyFile := ca.Leaf(fmt.Sprintf("broker-%d", n.ID), "127.0.0.1", "localhost")
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	props["ssl.keystore.type"] = "PEM"
	props["ssl.keystore.certificate.chain"] = string(cert)
	props["ssl.keystore.key"] = string(key)
	props["ssl.truststore.type"] = "PEM"
	props["ssl.truststore.location"] = ca.CertFile
	return nil
}

// saslProps sets the SASL_SSL listener's mechanisms and JAAS
// configurations: PLAIN with cfg.PlainUsers, SCRAM-SHA-512 (its users are
// in the metadata log, from format).
func saslProps(cfg Config, props map[string]string) {
	props["listener.name.sasl_ssl.sasl.enabled.mechanisms"] = "PLAIN,SCRAM-SHA-512"
	var plain strings.Builder
	plain.WriteString("org.apache.kafka.common.security.plain.PlainLoginModule required")
	for _, u := range sortedKeys(cfg.PlainUsers) {
		fmt.Fprintf(&plain, " user_%s=%q", u, cfg.PlainUsers[u])
	}
	plain.WriteString(";")
	props["listener.name.sasl_ssl.plain.sasl.jaas.config"] = plain.String()
	props["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// format runs kafka-storage format (kafka.tools.StorageTool) on the node's
// log directory, adding the SCRAM-SHA-512 users scram (name → password).
func (n *Node) format(clusterID string, scram map[string]string) error {
	args := []string{"-Xmx256m", "-cp", n.cp, "kafka.tools.StorageTool",
		"format", "-t", clusterID, "-c", filepath.Join(n.Dir, "server.properties")}
	for _, u := range sortedKeys(scram) {
		args = append(args, "--add-scram", fmt.Sprintf("SCRAM-SHA-512=[name=%s,password=%s]", u, scram[u]))
	}
	cmd := exec.Command(javaBin(), args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("node %d: kafka-storage format: %v\n%s", n.ID, err, out)
	}
	return nil
}

// start launches the node's JVM (kafka.Kafka server.properties), output
// appended to Dir/node.log.
func (n *Node) start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		return fmt.Errorf("node %d is running", n.ID)
	}
	logf, err := os.OpenFile(filepath.Join(n.Dir, "node.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(javaBin(), "-Xmx"+n.heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-cp", n.cp, "kafka.Kafka", filepath.Join(n.Dir, "server.properties"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("node %d: %v", n.ID, err)
	}
	n.cmd, n.done = cmd, make(chan struct{})
	done := n.done
	go func() {
		err := cmd.Wait()
		logf.Close()
		n.mu.Lock()
		n.err = err
		n.mu.Unlock()
		close(done)
	}()
	return nil
}

// Running reports whether the node's JVM is running.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// Addr is the address kwire talks to the node at: the broker listener, else
// the controller listener.
func (n *Node) Addr() string {
	if n.BrokerAddr != "" {
		return n.BrokerAddr
	}
	return n.ControllerAddr
}

// WaitReady waits until the node answers: ApiVersions on its controller
// listener for a controller, and Metadata listing itself for a broker.
// Errors: the JVM exited, or ctx ended (with the tail of the node's log).
func (n *Node) WaitReady(ctx context.Context) error {
	set, err := spec.Embedded("")
	if err != nil {
		return err
	}
	cd := codec.New(set)
	for {
		if !n.Running() {
			return fmt.Errorf("node %d exited: %v\n%s", n.ID, n.err, n.LogTail(40))
		}
		if n.probe(ctx, cd) == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %d not ready: %v\n%s", n.ID, n.probe(context.Background(), cd), n.LogTail(40))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (n *Node) probe(ctx context.Context, cd *codec.Codec) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, n.Addr(), cd, client.Options{ClientID: "kafkatest"})
	if err != nil {
		return err
	}
	defer conn.Close()
	if n.BrokerAddr == "" {
		return nil
	}
	req := cd.Set.Request(3)
	v, err := conn.Negotiate(req)
	if err != nil {
		return err
	}
	body, err := codec.FromJSON([]byte(`{"topics":[],"allowAutoTopicCreation":false,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`), req, v)
	if err != nil {
		return err
	}
	x, err := conn.Call(ctx, req, v, body)
	if err != nil {
		return err
	}
	js, err := codec.ToJSON(nil, x.Response, x.Response.Part(4), x.Response.Message, x.Response.Version, codec.JSONOptions{})
	if err != nil {
		return err
	}
	if !bytes.Contains(js, []byte(fmt.Sprintf(`"nodeId":%d,`, n.ID))) {
		return fmt.Errorf("node %d not yet in its own Metadata", n.ID)
	}
	return nil
}

// Stop stops the node gracefully (SIGTERM, as kafka-server-stop does) and
// waits up to timeout for it to exit, then kills it.
func (n *Node) Stop(timeout time.Duration) {
	n.signal(syscall.SIGTERM)
	n.wait(timeout)
}

// Kill kills the node's JVM (SIGKILL: no resignation, no clean shutdown)
// and waits for it to exit.
func (n *Node) Kill() {
	n.signal(syscall.SIGKILL)
	n.wait(30 * time.Second)
}

// Restart starts a stopped node again on the same data directory and
// configuration.
func (n *Node) Restart() error {
	return n.start()
}

func (n *Node) signal(sig syscall.Signal) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil && n.cmd.Process != nil {
		syscall.Kill(-n.cmd.Process.Pid, sig)
	}
}

func (n *Node) wait(timeout time.Duration) {
	n.mu.Lock()
	done := n.done
	n.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(timeout):
		n.signal(syscall.SIGKILL)
		<-done
	}
	n.mu.Lock()
	n.cmd = nil
	n.mu.Unlock()
}

// LogTail returns the last lines of the node's log.
func (n *Node) LogTail(lines int) string {
	b, _ := os.ReadFile(filepath.Join(n.Dir, "node.log"))
	s := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(s) > lines {
		s = s[len(s)-lines:]
	}
	return strings.Join(s, "\n")
}

// LogDir is the node's Kafka log directory (log.dirs): topic partition
// directories and __cluster_metadata-0 live there.
func (n *Node) LogDir() string { return filepath.Join(n.Dir, "data") }

// Leader returns the node of the given id, or nil.
func (c *Cluster) Node(id int) *Node {
	for _, n := range c.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

func (c *Cluster) cleanup(t testing.TB) {
	for _, n := range c.Nodes {
		n.Kill()
	}
	if art := ArtifactDir(t); art != "" {
		for _, n := range c.Nodes {
			copyFile(filepath.Join(n.Dir, "node.log"), filepath.Join(art, fmt.Sprintf("node-%d.log", n.ID)))
		}
	}
	if t.Failed() {
		for _, n := range c.Nodes {
			t.Logf("node %d (%s) log tail:\n%s", n.ID, n.Roles, n.LogTail(30))
		}
	}
}

// ArtifactDir returns KWIRE_ARTIFACTS/<test name>, created, or "" when
// KWIRE_ARTIFACTS is not set: where tests keep what a reader of a CI run
// wants to see (decoded exchanges, node logs).
func ArtifactDir(t testing.TB) string {
	root := os.Getenv("KWIRE_ARTIFACTS")
	if root == "" {
		return ""
	}
	d := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Logf("artifacts: %v", err)
		return ""
	}
	return d
}

func copyFile(src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		return
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return
	}
	defer out.Close()
	io.Copy(out, in)
}

// shared is the one combined node a test binary shares (Shared).
var shared struct {
	sync.Mutex
	c   *Cluster
	err string
	t   *sharedT
}

// Shared returns a single combined KRaft node (broker and controller, node
// id 1) started once per test binary and shared by its tests; the package's
// TestMain must call Main so that it is stopped at the end. Tests must not
// stop it, and should create topics of their own names.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	Require(t)
	shared.Lock()
	defer shared.Unlock()
	if shared.err != "" {
		t.Fatal(shared.err)
	}
	// A second attempt when the first fails: the node's ports are chosen
	// free a moment before the JVM binds them, and another process may
	// take one in between. The first failure is printed, not hidden.
	for attempt := 1; shared.c == nil && attempt <= 2; attempt++ {
		st := &sharedT{TB: t, name: "shared"}
		shared.t = st
		shared.err = ""
		func() {
			defer func() {
				if r := recover(); st.fatal != "" || r != nil {
					shared.err = fmt.Sprintf("starting the shared Kafka node (attempt %d): %s", attempt, st.fatal)
				}
			}()
			shared.c = startShared(st)
		}()
		if shared.err != "" && attempt == 1 {
			fmt.Fprintln(os.Stderr, shared.err+"; trying again")
			st.runCleanups()
		}
	}
	if shared.err != "" {
		t.Fatal(shared.err)
	}
	return shared.c
}

// startShared runs Start with a testing.TB whose Fatal does not end the
// calling test's goroutine mid-way through (it panics, caught by Shared).
// Its controller writes a KRaft snapshot after every 4 KiB of new metadata
// records, so that tests find snapshots (*.checkpoint) in
// __cluster_metadata-0 beside the one kafka-storage format writes.
func startShared(st *sharedT) *Cluster {
	return Start(st, Config{Props: map[string]string{"metadata.log.max.record.bytes.between.snapshots": "4096"}})
}

// sharedT adapts the first caller's testing.TB for a cluster that outlives
// it: cleanups run at Main's end, temporary directories are its own, and
// Fatal records the message and unwinds.
type sharedT struct {
	testing.TB
	name     string
	fatal    string
	cleanups []func()
	dirs     []string
}

// runCleanups runs the registered cleanups, last first, and removes the
// temporary directories.
func (s *sharedT) runCleanups() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
	for _, d := range s.dirs {
		os.RemoveAll(d)
	}
	s.dirs = nil
}

func (s *sharedT) Helper()      {}
func (s *sharedT) Name() string { return s.name }
func (s *sharedT) Failed() bool { return s.fatal != "" }
func (s *sharedT) Cleanup(f func()) {
	s.cleanups = append(s.cleanups, f)
}
func (s *sharedT) TempDir() string {
	d, err := os.MkdirTemp("", "kwire-kafka-")
	if err != nil {
		s.Fatal(err)
	}
	s.dirs = append(s.dirs, d)
	return d
}
func (s *sharedT) Fatal(args ...any) {
	s.fatal = fmt.Sprint(args...)
	panic(s.fatal)
}
func (s *sharedT) Fatalf(format string, args ...any) { s.Fatal(fmt.Sprintf(format, args...)) }
func (s *sharedT) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (s *sharedT) Skip(args ...any)                  { s.Fatal(args...) }

// Main runs a package's tests (m.Run) and then stops the shared node, if
// one was started: func TestMain(m *testing.M) { os.Exit(kafkatest.Main(m)) }.
//
// When tests were skipped because Kafka is not installed, Main writes one
// line saying how many and why (SkipNotice) to the terminal (/dev/tty),
// where `go test ./...` shows it without -v (the go command keeps the
// output of a passing package to itself), else to standard error.
func Main(m *testing.M) int {
	code := m.Run()
	shared.Lock()
	if st := shared.t; st != nil {
		st.runCleanups()
	}
	shared.Unlock()
	skips.Lock()
	n, why := skips.n, skips.why
	skips.Unlock()
	if line := SkipNotice(filepath.Base(os.Args[0]), n, why); line != "" {
		w := io.WriteCloser(nopCloser{os.Stderr})
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			w = tty
		}
		fmt.Fprintln(w, line)
		w.Close()
	}
	return code
}

// skips counts the tests that Require skipped, with the last reason.
var skips struct {
	sync.Mutex
	n   int
	why string
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// SkipNotice is the line Main prints when n tests of test binary bin
// ("kwire.test") were skipped because real Kafka is not available (why:
// the missing file or program); "" when n is 0.
func SkipNotice(bin string, n int, why string) string {
	if n == 0 {
		return ""
	}
	tests := "tests"
	if n == 1 {
		tests = "test"
	}
	return fmt.Sprintf("%s: %d live %s skipped: real Kafka not available: %s (run interop/kafka/install.sh)", bin, n, tests, why)
}

// newClusterID returns a random cluster id in the form Kafka's Uuid takes
// (16 bytes, URL-safe base64 without padding) that does not begin with
// '-': kafka-storage's argument parser reads "--cluster-id -x…" as a
// missing value followed by an option, and Kafka's own Uuid.randomUuid
// never makes such an id for the same reason. One random id in 64 begins
// with '-' (a flaky start of a live test before this).
func newClusterID() string {
	for {
		var b [16]byte
		rand.Read(b[:])
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id
		}
	}
}
