package flow

import (
	"fmt"
	"strings"
	"time"

	"github.com/kwire/kwire/clientcheck"
	"github.com/kwire/kwire/tree"
)

// Dir is a direction of a TCP connection: the stream of requests from the
// client to the broker, or the stream of responses back.
type Dir uint8

const (
	// ClientToServer is the request stream (client to broker).
	ClientToServer Dir = 0
	// ServerToClient is the response stream (broker to client).
	ServerToClient Dir = 1
)

// String is "c2s" or "s2c".
func (d Dir) String() string {
	if d == ClientToServer {
		return "c2s"
	}
	return "s2c"
}

// Event is what a Conn reports: an *Exchange or a *Problem. Each event is
// a fresh value that the receiver owns.
type Event interface{ event() }

func (*Exchange) event() {}
func (*Problem) event()  {}

// Frame is one framed request or response as seen on its stream.
type Frame struct {
	// Offset is the stream offset of the frame's int32 size prefix: the
	// number of bytes of its direction before it (gaps included).
	Offset int64
	// Size is the whole frame in bytes: 4 (the size prefix) plus the size
	// the prefix gives.
	Size int
	// Start and End are the times of the data that held the frame's first
	// and last bytes.
	Start, End time.Time
	// HeaderVersion is the request header (0-2) or response header (0-1)
	// version the frame was decoded with, or -1 when not decoded.
	HeaderVersion int16
	// Tree is the decoded span tree (possibly partial when Err is set);
	// kept only with Options.KeepTrees, else nil. Its Bytes are a private
	// copy of the frame.
	Tree *tree.Tree
	// Err is why the frame did not decode: the codec's error (*wire.Error,
	// *codec.FrameError, *codec.VersionError, offsets relative to the
	// frame's first byte), or a description when there is no spec to
	// decode it with (a response to an unknown api key) or the frame was
	// lost in a gap. nil when it decoded.
	Err error
}

// Exchange is one request and its response, matched by correlation id on
// one connection. Either may be missing: Response is nil for a request
// still unanswered when the connection ended (or passed over: Kafka answers
// the requests of a connection in order, so when the response to a later
// request arrives the earlier ones will never be answered), and for a
// Produce request with acks=0 (NoResponse); Request is nil for a response
// whose correlation id matches no request seen.
type Exchange struct {
	// APIKey, API and Version name the request: api key 3, "Metadata",
	// version 12. APIKey and Version are -1 and API "" when the request was
	// not seen; API is "" for an api key the specs do not know.
	APIKey  int16
	API     string
	Version int16
	// CorrelationID is the correlation id of the request header, echoed
	// by the response header.
	CorrelationID int32
	// ClientID is the request header's client id ("" when null or not
	// seen).
	ClientID string
	// Request and Response are the frames; either may be nil (see above).
	Request, Response *Frame
	// NoResponse marks a Produce request with acks=0, which the broker
	// never answers.
	NoResponse bool
	// Errors are the non-zero error codes of the response, in tree order.
	Errors []ErrorCode
	// Token marks an exchange of raw SASL tokens: after a successful
	// SaslHandshake v0 the client sends its SASL tokens framed by an int32
	// size alone (no request header) and the broker answers each likewise,
	// until authentication completes. APIKey and Version are then -1,
	// API "", and the frames have no tree (their bytes are the tokens).
	Token bool
	// Mechanism is the SASL mechanism ("PLAIN", "SCRAM-SHA-512") of the
	// connection's last SaslHandshake request (on SaslHandshake,
	// SaslAuthenticate and Token exchanges), and User the user name the
	// first auth bytes after it show (secret.SASLUser: PLAIN's authcid,
	// SCRAM's n=; on SaslAuthenticate and Token exchanges); "" when not
	// known. A new SaslHandshake (re-authentication, KIP-368)
	// starts them again.
	Mechanism, User string
	// Findings are what package clientcheck found wrong in the request
	// (Options.Check), by offset in the request's frame; nil without.
	Findings []clientcheck.Finding
	// DecodedWith is the release of the Options.Fallback set the request
	// and response were decoded with ("3.9.2") because the Codec's set does
	// not accept the request's api key and version; "" when the Codec's set
	// decoded them (or the request was not seen).
	DecodedWith string
	// ClientSoftwareName and ClientSoftwareVersion are what the
	// connection's last ApiVersions request (version 3 on, KIP-511) said
	// of the client's software ("apache-kafka-java", "4.0.0"), on that
	// exchange and every one after it; "" before one.
	ClientSoftwareName, ClientSoftwareVersion string
	// Topics are the topics and partitions the request names, with
	// Options.Touched (see Touched); nil without it, when the request
	// names none, or when it did not decode.
	Topics []TopicPartitions
}

// Latency is the time from the end of the request to the end of the
// response (both frames seen whole), or 0 when either is missing.
func (x *Exchange) Latency() time.Duration {
	if x.Request == nil || x.Response == nil {
		return 0
	}
	return max(0, x.Response.End.Sub(x.Request.End))
}

// Kind says what a Problem is.
type Kind uint8

const (
	// FrameTooLarge is a size prefix over Options.MaxFrame: the frame's
	// bytes are skipped (counted, never buffered) and the stream stays in
	// step with the size prefix.
	FrameTooLarge Kind = iota + 1
	// NegativeSize is a negative size prefix: no frame can follow, so the
	// stream is searched for the next plausible frame (see Resync).
	NegativeSize
	// NotKafka is a size prefix that cannot be a frame and whose bytes look
	// like another protocol (Protocol: "TLS", "HTTP"); the direction is no
	// longer decoded, its bytes only counted.
	NotKafka
	// Truncated is the end of a stream inside a frame: Size is the size
	// the prefix gave, Have the bytes of the frame that arrived. When the
	// stream ends inside the 4-byte size prefix itself, Size is -1 (no
	// size was read) and Have is the bytes of the prefix that arrived,
	// 1 to 3.
	Truncated
	// DecodeFailed is a well-framed request or response that did not
	// decode; Err is the codec's error and Path its field path. Decoding
	// goes on with the next frame.
	DecodeFailed
	// Gap is Missing bytes of the stream that never arrived (a capture
	// that lost packets, a proxy whose decoder fell behind). When a gap
	// falls inside a frame whose size is known the stream stays in step
	// (the frame is lost, Lost says so); else it is searched for the next
	// plausible frame.
	Gap
	// Resync is a plausible frame found after Skipped bytes that could not
	// be decoded (after a gap, a negative size, or at the start of a stream
	// joined mid-way).
	Resync
	// Garbage is Skipped bytes at the end of a stream in which no plausible
	// frame was found.
	Garbage
	// Records is a problem in the records of a request or response that
	// decoded (a tree.Problem that is not a notice: a batch whose CRC does
	// not match, a record count that does not, a payload that does not
	// decompress); one is reported for each. Err and Path are the tree
	// problem's.
	Records
	// NotHeld is a request whose tree (Options.KeepTrees) is not held
	// awaiting its response: its footprint (Tree, bytes) would take the
	// trees held past the HeldTrees bound (Limit). Its exchange is
	// reported with the request's Frame but no Tree. A limit of the
	// decoder, not a fault of the stream: a notice.
	NotHeld
)

var kindNames = [...]string{"", "frame-too-large", "negative-size", "not-kafka", "truncated", "decode-failed", "gap", "resync", "garbage", "records", "not-held"}

// String is the kind's name as JSON output shows it ("frame-too-large").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Problem is something in a stream that is not a well-formed Kafka frame,
// or a frame that does not decode.
type Problem struct {
	Kind Kind
	Dir  Dir
	// Offset is the stream offset where it is: the size prefix of the
	// frame concerned, the first byte missing or skipped, (DecodeFailed)
	// the byte where decoding failed, or (Records) that of the problem.
	Offset int64
	// Time is the time of the data that showed the problem.
	Time time.Time
	// Size is the size prefix read (FrameTooLarge, NegativeSize, NotKafka,
	// Truncated, DecodeFailed and Records: the whole frame then); -1 for
	// a Truncated size prefix.
	Size int64
	// Limit is the MaxFrame in force (FrameTooLarge, NotKafka), or the
	// HeldTrees bound in bytes (NotHeld).
	Limit int
	// Tree is the footprint in bytes of the tree not held (NotHeld).
	Tree int64
	// Have is the number of bytes of a Truncated frame that arrived after
	// its size prefix, or (Size -1) of the size prefix.
	Have int64
	// Skipped is the number of bytes passed over (Resync, Garbage); Missing
	// the number of bytes that never arrived (Gap).
	Skipped, Missing int64
	// Lost is set on a Gap that fell inside a frame: that frame (at
	// FrameOffset) is lost, the stream stays in step.
	Lost        bool
	FrameOffset int64
	// Protocol names what the bytes look like (NotKafka): "TLS" or "HTTP".
	Protocol string
	// APIKey, Version and CorrelationID describe the frame concerned when
	// known (DecodeFailed, Records, NotHeld), else -1, -1, 0.
	APIKey, Version int16
	CorrelationID   int32
	// Path is the field path where decoding failed (DecodeFailed) or of the
	// problem in the records (Records).
	Path string
	// Err is the codec's error (DecodeFailed) or the records' problem
	// (Records): offsets in it are relative to the frame's first byte, at
	// stream offset FrameOffset.
	Err error
}

// String describes the problem in one line, naming the direction and the
// stream offset.
func (p *Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at stream offset %d: ", p.Dir, p.Offset)
	switch p.Kind {
	case FrameTooLarge:
		fmt.Fprintf(&b, "frame size %d is over the limit of %d bytes; its bytes are forwarded but not decoded", p.Size, p.Limit)
	case NegativeSize:
		fmt.Fprintf(&b, "frame size %d is negative; searching for the next frame", p.Size)
	case NotKafka:
		fmt.Fprintf(&b, "frame size %d is not a Kafka frame (limit %d): these bytes look like %s, not Kafka; this direction is no longer decoded", p.Size, p.Limit, p.Protocol)
	case Truncated:
		if p.Size < 0 {
			fmt.Fprintf(&b, "the stream ends inside a size prefix (%d of 4 bytes)", p.Have)
			break
		}
		fmt.Fprintf(&b, "end of stream inside a frame: its size prefix says %d bytes follow, %d arrived", p.Size, p.Have)
	case DecodeFailed, Records:
		side := "request"
		if p.Dir == ServerToClient {
			side = "response"
		}
		fmt.Fprintf(&b, "%s", side)
		if p.APIKey >= 0 {
			fmt.Fprintf(&b, " (api key %d v%d, correlation id %d)", p.APIKey, p.Version, p.CorrelationID)
		}
		if p.Kind == Records {
			fmt.Fprintf(&b, " in the frame at stream offset %d has a problem in its records: %v", p.FrameOffset, p.Err)
		} else {
			fmt.Fprintf(&b, " in the frame at stream offset %d does not decode: %v", p.FrameOffset, p.Err)
		}
	case NotHeld:
		fmt.Fprintf(&b, "request (api key %d v%d, correlation id %d): its tree (%d bytes) is not kept awaiting the response: the trees of the requests awaiting responses would pass %d bytes; the exchange comes without it", p.APIKey, p.Version, p.CorrelationID, p.Tree, p.Limit)
	case Gap:
		fmt.Fprintf(&b, "%d bytes missing", p.Missing)
		if p.Lost {
			fmt.Fprintf(&b, "; the frame at stream offset %d is lost, the stream stays in step", p.FrameOffset)
		} else {
			b.WriteString("; searching for the next frame")
		}
	case Resync:
		fmt.Fprintf(&b, "skipped %d bytes to a plausible frame at stream offset %d", p.Skipped, p.Offset+p.Skipped)
	case Garbage:
		fmt.Fprintf(&b, "%d bytes skipped: no plausible frame before the end of the stream", p.Skipped)
	default:
		b.WriteString(p.Kind.String())
	}
	return b.String()
}
