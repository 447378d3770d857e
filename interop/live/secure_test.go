package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwire/kwire/internal/kafkatest"
	"github.com/kwire/kwire/internal/tlsconf"
)

// secretPassword is a password made for one test run, so that a search of
// the outputs for it finds nothing else.
func secretPassword(t *testing.T, user string) string {
	t.Helper()
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return user + "-pw-" + hex.EncodeToString(b[:])
}

// secureCluster starts 1 controller and 3 brokers (node ids 2, 3, 4) with
// SSL and SASL_SSL listeners: alice is a SASL/PLAIN user, bob a
// SCRAM-SHA-512 one. advertise is Config.AdvertisedAddr.
func secureCluster(t *testing.T, alicePw, bobPw string, advertise func(id int, listener, real string) string) *kafkatest.Cluster {
	t.Helper()
	return kafkatest.Start(t, kafkatest.Config{
		Controllers: 1, Brokers: 3, Heap: "320m",
		Listeners:      []string{kafkatest.SSL, kafkatest.SASLSSL},
		PlainUsers:     map[string]string{"alice": alicePw},
		ScramUsers:     map[string]string{"bob": bobPw},
		AdvertisedAddr: advertise,
	})
}

// createSpreadTopics creates topics of one partition per broker, partition
// i's one replica (so its leader) on the i-th broker, and checks in
// Metadata that the leaders are so.
func createSpreadTopics(t *testing.T, c *kafkatest.Cluster, names ...string) {
	t.Helper()
	brokers := c.Brokers()
	var assign []string
	for i, b := range brokers {
		assign = append(assign, fmt.Sprintf(`{"partitionIndex":%d,"brokerIds":[%d]}`, i, b.ID))
	}
	var topics []string
	for _, n := range names {
		topics = append(topics, fmt.Sprintf(`{"name":%q,"numPartitions":-1,"replicationFactor":-1,"assignments":[%s],"configs":[]}`, n, strings.Join(assign, ",")))
	}
	var resp struct {
		Topics []struct {
			Name      string `json:"name"`
			ErrorCode int16  `json:"errorCode"`
		} `json:"topics"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := fmt.Sprintf(`{"topics":[%s],"timeoutMs":30000,"validateOnly":false}`, strings.Join(topics, ","))
	if err := callJSON(ctx, c.Bootstrap, "CreateTopics", body, &resp); err != nil {
		t.Fatal(err)
	}
	for _, tp := range resp.Topics {
		if tp.ErrorCode != 0 {
			t.Fatalf("CreateTopics: %+v", resp)
		}
	}
	// Every broker learns the leaders from the metadata log; wait until
	// each partition's leader is its broker in every broker's Metadata.
	var want []string
	for i, b := range brokers {
		want = append(want, fmt.Sprintf("%d:%d", i, b.ID))
	}
	for _, b := range brokers {
		for _, n := range names {
			var got []string
			deadline := time.Now().Add(30 * time.Second)
			for got = partitionLeaders(b.BrokerAddr, n); strings.Join(got, ",") != strings.Join(want, ","); got = partitionLeaders(b.BrokerAddr, n) {
				if time.Now().After(deadline) {
					t.Fatalf("topic %s in broker %d's Metadata: leaders %v, want %v", n, b.ID, got, want)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
}

// partitionLeaders asks addr for topic's Metadata: "partition:leader" in
// partition order (the error when there is one).
func partitionLeaders(addr, topic string) []string {
	var resp struct {
		Topics []struct {
			ErrorCode  int16 `json:"errorCode"`
			Partitions []struct {
				PartitionIndex int32 `json:"partitionIndex"`
				LeaderID       int32 `json:"leaderId"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","name":%q}],"allowAutoTopicCreation":false,"includeClusterAuthorizedOperations":false,"includeTopicAuthorizedOperations":false}`, topic)
	if err := callJSON(ctx, addr, "Metadata", body, &resp); err != nil {
		return []string{err.Error()}
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		return []string{fmt.Sprintf("Metadata: %+v", resp)}
	}
	ps := make([]string, len(resp.Topics[0].Partitions))
	for _, p := range resp.Topics[0].Partitions {
		if int(p.PartitionIndex) >= len(ps) {
			return []string{fmt.Sprintf("Metadata: %+v", resp)}
		}
		ps[p.PartitionIndex] = fmt.Sprintf("%d:%d", p.PartitionIndex, p.LeaderID)
	}
	return ps
}

// franzSpread produces n records with franz-go to topic's partitions in
// turn (record i to partition i mod partitions) and consumes them back,
// checking each partition's records, in order; opts say how to connect
// (seed brokers, TLS, SASL, dialer).
func franzSpread(t *testing.T, topic string, partitions, n int, opts ...kgo.Opt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pc, err := kgo.NewClient(append([]kgo.Opt{kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(5 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var perr error
	var pmu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		r := &kgo.Record{Key: []byte(recordKey(i)), Value: []byte(recordValue(i)), Partition: int32(i % partitions)}
		pc.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				pmu.Lock()
				perr = err
				pmu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	pc.Close()
	if perr != nil {
		t.Fatalf("produce: %v", perr)
	}

	cc, err := kgo.NewClient(append([]kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	next := make([]int, partitions) // the next offset expected per partition
	for got := 0; got < n; {
		fs := cc.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d: %v", got, n, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			p := int(r.Partition)
			i := next[p]*partitions + p
			if p >= partitions || r.Offset != int64(next[p]) || string(r.Key) != recordKey(i) || string(r.Value) != recordValue(i) {
				t.Fatalf("partition %d record at offset %d: key %q, want offset %d key %q", p, r.Offset, r.Key, next[p], recordKey(i))
			}
			next[p]++
			got++
		})
	}
}

// The secure cluster itself, without kwire: franz-go produces to and
// consumes from partitions led by each of the three brokers over SSL, and
// over SASL_SSL as a PLAIN and as a SCRAM-SHA-512 user; a wrong password
// is refused.
func TestSecureCluster(t *testing.T) {
	kafkatest.Require(t)
	alicePw, bobPw := secretPassword(t, "alice"), secretPassword(t, "bob")
	c := secureCluster(t, alicePw, bobPw, nil)
	createSpreadTopics(t, c, "secure-ssl", "secure-plain", "secure-scram")
	tc, err := tlsconf.Client(c.CA.CertFile, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	seeds := func(listener string) kgo.Opt {
		var s []string
		for _, b := range c.Brokers() {
			s = append(s, b.Listeners[listener])
		}
		return kgo.SeedBrokers(s...)
	}
	const n = 3000
	t.Run("ssl", func(t *testing.T) {
		franzSpread(t, "secure-ssl", 3, n, seeds(kafkatest.SSL), kgo.DialTLSConfig(tc.Clone()))
	})
	t.Run("sasl-plain", func(t *testing.T) {
		franzSpread(t, "secure-plain", 3, n, seeds(kafkatest.SASLSSL), kgo.DialTLSConfig(tc.Clone()),
			kgo.SASL(plain.Auth{User: "alice", Pass: alicePw}.AsMechanism()))
	})
	t.Run("sasl-scram-sha-512", func(t *testing.T) {
		franzSpread(t, "secure-scram", 3, n, seeds(kafkatest.SASLSSL), kgo.DialTLSConfig(tc.Clone()),
			kgo.SASL(scram.Auth{User: "bob", Pass: bobPw}.AsSha512Mechanism()))
	})
	t.Run("wrong-password", func(t *testing.T) {
		cl, err := kgo.NewClient(seeds(kafkatest.SASLSSL), kgo.DialTLSConfig(tc.Clone()),
			kgo.SASL(scram.Auth{User: "bob", Pass: alicePw}.AsSha512Mechanism()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = cl.Ping(ctx)
		if err == nil || !strings.Contains(err.Error(), "SASL_AUTHENTICATION_FAILED") {
			t.Fatalf("a wrong SCRAM password: %v, want SASL_AUTHENTICATION_FAILED", err)
		}
	})
}
