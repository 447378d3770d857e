package lint_test

import (
	"fmt"

	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/spec/lint"
)

// A draft with a misspelt type and key, and a field without "about": Check
// reports each at its line:col; ApplyFixes makes the two unambiguous fixes.
func ExampleCheck() {
	draft := []byte(`{
  "apiKey": 1000, "type": "request", "listeners": ["broker"], "name": "PingRequest",
  "validVersions": "0", "flexibleVersions": "0+",
  "fields": [
    { "name": "Urgent", "type": "booleanbool", "versions": "0+", "ignoreable": true }
  ]
}
`)
	r := lint.Check([]bundle.File{{Path: "PingRequest.json", Data: draft}}, false)
	for _, p := range r.Problems {
		fmt.Println(p)
	}
	fixed, done := lint.ApplyFixes(draft, r.Files[0].Fixes)
	for _, f := range done {
		fmt.Println("fixed:", f.Desc)
	}
	fmt.Println(len(lint.Check([]bundle.File{{Path: "PingRequest.json", Data: fixed}}, false).Problems.Errors()), "errors after the fix")
	// Output:
	// PingRequest.json:5:5: warning: field "Urgent" has no "about": Kafka's protocol documentation shows it [missing-about]
	// PingRequest.json:5:33: error: field "Urgent": unknown type "booleanbool"; did you mean "bool"? [bad-type]
	// PingRequest.json:5:66: error: unknown key "ignoreable" in field; did you mean "ignorable"? [unknown-key]
	// fixed: type "booleanbool" → "bool"
	// fixed: key "ignoreable" → "ignorable"
	// 0 errors after the fix
}
