package evolve

import (
	"fmt"

	"github.com/kwire/kwire/spec"
)

// NotCompared is an internal topic whose record specs one side of a
// comparison carries and the other does not (see spec.Set.Carries): an
// embedded release whose jars hold none (Kafka 3.9.2 has no
// __share_group_state specs), or specs loaded from a path without them.
// Compat leaves that topic's records out: one side lacking a jar is no
// evidence that a record was added or removed.
type NotCompared struct {
	Topic spec.Topic
	// Old is true when the old side lacks the specs, false when the new
	// side does.
	Old bool
}

// Uncarried returns the internal topics whose record specs only one of
// old and new carries, in the order of spec.Topics.
func Uncarried(old, new *spec.Set) []NotCompared {
	var out []NotCompared
	for _, t := range spec.Topics() {
		if o, n := old.Carries(t), new.Carries(t); o != n {
			out = append(out, NotCompared{Topic: t, Old: !o})
		}
	}
	return out
}

// NotComparedLines says, one line each, which internal topics' records
// were not compared and why: "Kafka 3.9.2 carries no __share_group_state
// specs: not compared".
func (c *Comparison) NotComparedLines() []string {
	var out []string
	for _, g := range c.NotCompared {
		out = append(out, c.notComparedLine(g))
	}
	return out
}

func (c *Comparison) notComparedLine(g NotCompared) string {
	lacking := c.NewLabel
	if g.Old {
		lacking = c.OldLabel
	}
	return fmt.Sprintf("%s carries no %s specs: not compared", lacking, g.Topic.TopicName())
}

// NotComparedJSON is a NotCompared in the JSON of WriteJSON.
type NotComparedJSON struct {
	// Topic is the topic's name ("__share_group_state").
	Topic string `json:"topic"`
	// Lacking is the side without the specs: "old" or "new".
	Lacking string `json:"lacking"`
	Msg     string `json:"msg"`
}

func (c *Comparison) notComparedJSON() []NotComparedJSON {
	var out []NotComparedJSON
	for _, g := range c.NotCompared {
		side := "new"
		if g.Old {
			side = "old"
		}
		out = append(out, NotComparedJSON{Topic: g.Topic.TopicName(), Lacking: side, Msg: c.notComparedLine(g)})
	}
	return out
}
