package spec

// ListRow is one line of `kwire list`: an API (its request and response as
// one row) or one header, record or data type. Its JSON keys are those of
// `kwire list --format json`.
type ListRow struct {
	// APIKey is nil (JSON null) for types without one (headers, data
	// messages): the key is always present, as in show's JSON.
	APIKey *int16 `json:"api_key"`
	// Name is the message's name, an API's without its Request suffix
	// ("Fetch").
	Name string `json:"name"`
	// Type is the MessageType, or "api" for an API's row.
	Type string `json:"type"`
	// ValidVersions and FlexibleVersions are the spec's ranges ("0-17",
	// "12+").
	ValidVersions    string `json:"valid_versions"`
	FlexibleVersions string `json:"flexible_versions"`
	// Listeners are the spec's listeners; empty, never nil.
	Listeners []string `json:"listeners"`
	// Topic is the internal topic whose records the message defines
	// ("__consumer_offsets"); RecordTypes the record types of a
	// coordinator record key or value ("0-1"). Both are left out for
	// other messages.
	Topic       string `json:"topic,omitempty"`
	RecordTypes string `json:"record_types,omitempty"`
}

// ListRows returns the rows of s in the order of Set.Messages: APIs by
// api key, then headers, metadata records and data messages. An API is one
// row named without its Request suffix and described by its request spec;
// a response without a request spec (in a draft) gets a row of its own.
func (s *Set) ListRows() []ListRow {
	var rows []ListRow
	for _, m := range s.Messages {
		r := ListRow{
			Name:             m.Name,
			Type:             string(m.Type),
			ValidVersions:    m.ValidVersions.String(),
			FlexibleVersions: m.FlexibleVersions.String(),
			Listeners:        append([]string{}, m.Listeners...),
		}
		switch m.Type {
		case Request:
			r.Name, r.Type = m.BaseName(), "api"
		case Response:
			if m.APIKey >= 0 && s.Request(m.APIKey) != nil {
				continue
			}
		}
		if m.APIKey >= 0 {
			k := m.APIKey
			r.APIKey = &k
		}
		r.Topic = m.Topic.TopicName()
		if m.VersionPrefixed() && !m.RecordTypes.Empty() {
			r.RecordTypes = m.RecordTypes.String()
		}
		rows = append(rows, r)
	}
	return rows
}
