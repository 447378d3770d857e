package render

// ANSI colours by region. Only the foreground changes, so the text stays
// readable on light and dark terminals.
var regionColors = [...]string{
	regionNone:   "",
	regionFrame:  "\x1b[35m", // magenta
	regionHeader: "\x1b[36m", // cyan
	regionBody:   "\x1b[32m", // green
	regionBatch:  "\x1b[34m", // blue
	regionRecord: "\x1b[94m", // bright blue
	regionTags:   "\x1b[33m", // yellow
}

const colorReset = "\x1b[0m"

func colorOf(r region) string { return regionColors[r] }

// switchColor emits the colour of byte p's region when it differs from
// cur (regions is nil when colour is off).
func switchColor(b []byte, regions []region, p int, cur region) ([]byte, region) {
	if regions == nil || regions[p] == cur {
		return b, cur
	}
	if cur != regionNone {
		b = append(b, colorReset...)
	}
	return append(b, colorOf(regions[p])...), regions[p]
}

// resetColor ends a coloured run.
func resetColor(b []byte, cur region) ([]byte, region) {
	if cur == regionNone {
		return b, cur
	}
	return append(b, colorReset...), regionNone
}

// appendLegend writes "regions: frame header …", each in its colour.
func appendLegend(b []byte) []byte {
	b = append(b, "regions:"...)
	for r := regionFrame; r <= regionTags; r++ {
		b = append(b, ' ')
		b = append(b, colorOf(r)...)
		b = append(b, r.String()...)
		b = append(b, colorReset...)
	}
	return append(b, '\n')
}
