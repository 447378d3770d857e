package flow_test

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/spec"
)

// Feed one connection's bytes, in chunks of any size, and get each request
// matched to its response.
func Example() {
	set, err := spec.Embedded("") // the newest embedded release
	if err != nil {
		panic(err)
	}
	c := codec.New(set)
	// An ApiVersions v3 request (correlation id 101, client id
	// "adminclient-1"), as a Java client sends it.
	req, _ := hex.DecodeString("000000310012000300000065000d61646d696e636c69656e742d310012617061636865" +
		"2d6b61666b612d6a61766106322e382e3000")
	// Its response (ApiVersionsResponse v3 under response header v0):
	// error code 0, no api keys, throttle time 0, no tagged fields.
	resp, _ := hex.DecodeString("0000000c" + "00000065" + "0000" + "01" + "00000000" + "00")

	conn := flow.New(flow.Options{Codec: c}, func(e flow.Event) {
		switch e := e.(type) {
		case *flow.Exchange:
			if e.Request != nil && e.Response != nil {
				fmt.Printf("%s v%d corr %d client %q: request %d bytes, response %d bytes (header v%d)\n",
					e.API, e.Version, e.CorrelationID, e.ClientID, e.Request.Size, e.Response.Size, e.Response.HeaderVersion)
			}
		case *flow.Problem:
			fmt.Println("problem:", e)
		}
	})
	now := time.Now()
	conn.Data(flow.ClientToServer, req[:7], now) // a frame may arrive in pieces
	conn.Data(flow.ClientToServer, req[7:], now)
	conn.Data(flow.ServerToClient, resp, now)
	conn.Close(now)
	st := conn.Stats()
	fmt.Println(st.Exchanges, "exchange")
	// Output:
	// ApiVersions v3 corr 101 client "adminclient-1": request 53 bytes, response 16 bytes (header v0)
	// 1 exchange
}
