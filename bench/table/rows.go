package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// row is one line of the table.
type row struct {
	what, kwire, other, ratio, goal string
	met                             bool
}

// num formats x with format, or "–" when it is not a number.
func num(format string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf(format, x)
}

// ge reports whether x is a number at least goal; le, at most.
func ge(x, goal float64) bool { return !math.IsNaN(x) && x >= goal }
func le(x, goal float64) bool { return !math.IsNaN(x) && x <= goal }

const mib = 1024 // KiB in a MiB: /usr/bin/time's peak RSS is in KiB

// rows are the table's rows from f: the comparisons, in its order;
// missing lists the keys of f the rows show that have no values.
func rows(f figures) (rs []row, missing []string) {
	med := func(key string) float64 {
		v := f.median(key)
		if math.IsNaN(v) && !slices.Contains(missing, key) {
			missing = append(missing, key)
		}
		return v
	}
	// In-process: MB/s of kwire's judged side over the other side's, with
	// kwire's other sides (a reused tree, the whole tree…) beside it.
	// An extra with an other of its own is set against that side, not
	// the row's.
	type extra struct{ label, side, other string }
	speed := func(what, bench, kw string, extras []extra, other, otherName string, goal float64) {
		k, o := med(bench+"/"+kw+" MB/s"), med(bench+"/"+other+" MB/s")
		kwire, ratio := num("%.0f MB/s", k), num("%.2f", k/o)
		var ks, rs2 []string
		for _, x := range extras {
			r, xo := med(bench+"/"+x.side+" MB/s"), o
			if x.other != "" {
				xo = med(bench + "/" + x.other + " MB/s")
			}
			ks = append(ks, num("%.0f", r)+" "+x.label)
			rs2 = append(rs2, num("%.2f", r/xo)+" "+x.label)
		}
		if len(extras) > 0 {
			kwire += " (" + strings.Join(ks, "; ") + ")"
			ratio += " (" + strings.Join(rs2, "; ") + ")"
		}
		rs = append(rs, row{what: what, kwire: kwire, other: otherName + " " + num("%.0f MB/s", o),
			ratio: ratio, goal: fmt.Sprintf("≥ %.1f", goal), met: ge(k/o, goal)})
	}
	speed("decode a 1000×10 MetadataResponse v13 (fresh tree)", "BenchmarkDecodeMetadataResponse",
		"kwire-spantree", []extra{{"reused", "kwire-spantree-reused", ""}}, "kmsg", "kmsg ReadFrom", 1.5)
	speed("encode it (the decoded value, to bytes)", "BenchmarkEncodeMetadataResponse",
		"kwire-bytes", []extra{{"from a value tree", "kwire-bytes-valuetree", ""}, {"with the bytes' tree", "kwire-spantree", ""},
			{"a bare walk of the tree's nodes, no encoder", "tree-walk", ""},
			{"of 1000 topics unlike each other, against kmsg on them", "kwire-bytes-irregular", "kmsg-irregular"}}, "kmsg", "kmsg AppendTo", 1.0)
	speed("1 MiB FetchResponse, uncompressed batches (lazy records)", "BenchmarkFetch1MiB",
		"kwire", []extra{{"reused", "kwire-reused", ""}, {"whole tree", "kwire-whole", ""}, {"whole, reused", "kwire-whole-reused", ""}}, "kmsg+records", "kmsg + franz-go-style records", 0.8)
	// The batch rows judge records.DecodeParts, as kwire log reads a
	// segment: its arrays are reused from call to call, as the other
	// side reuses its buffer; a fresh tree (records.Decode), which owns
	// a new array of decompressed bytes each time, is beside it.
	speed("zstd batches (~1 MiB uncompressed; lazy records, in parts as kwire log reads them)", "BenchmarkZstdBatches1MiB",
		"kwire-parts", []extra{{"fresh tree", "kwire", ""}, {"whole fresh tree", "kwire-whole", ""}}, "kmsg+records", "same decompressor + kmsg records", 0.8)
	speed("lz4 batches (~1 MiB uncompressed; lazy records, in parts as kwire log reads them)", "BenchmarkLZ4Batches1MiB",
		"kwire-parts", []extra{{"fresh tree", "kwire", ""}, {"whole fresh tree", "kwire-whole", ""}}, "kmsg+records", "same decompressor + kmsg records", 0.8)

	// Processes: wall seconds (the ratio is the other's time over
	// kwire's) and peak RSS.
	seg := fmt.Sprintf("`kwire log`, %s zstd segment, %s records",
		num("%.0f MB", med("input.segment.bytes")/1e6), count(med("input.segment.records")))
	kt, jt := med("log.kwire.wall"), med("log.java.wall")
	km, jm := med("log.kwire.rss")/mib, med("log.java.rss")/mib
	rs = append(rs,
		row{what: seg, kwire: num("%.2f s", kt), other: "`kafka-dump-log --deep-iteration --print-data-log` " + num("%.2f s", jt),
			ratio: num("%.2f", jt/kt), goal: "≥ 4", met: ge(jt/kt, 4)},
		row{what: "… its peak RSS", kwire: num("%.0f MiB", km), other: num("%.0f MiB", jm),
			ratio: "", goal: "≤ 96 MiB", met: le(km, 96)})
	pt, tt := med("pcap.kwire.wall"), med("pcap.tshark.wall")
	rs = append(rs, row{what: fmt.Sprintf("`kwire pcap --tree`, %s capture tshark can read", num("%.0f MB", med("input.pcap.bytes")/1e6)),
		kwire: num("%.2f s", pt) + ", " + num("%.0f MiB", med("pcap.kwire.rss")/mib),
		other: "`tshark -V` " + num("%.2f s", tt) + ", " + num("%.0f MiB", med("pcap.tshark.rss")/mib),
		ratio: num("%.2f", tt/pt), goal: "≥ 1.5", met: ge(tt/pt, 1.5)})
	// The generated Wireshark dissector (kwire wireshark) in tshark
	// against tshark's built-in kafka dissector on the same capture, both
	// as plain `tshark -r` (no tree) and `tshark -V`: here the ratio is
	// kafka4's time over the built-in's, of CPU seconds (user + system;
	// tshark works on one core, and on a loaded machine its wall time
	// carries the other processes), wall seconds beside them.
	for _, w := range []struct{ key, label, what string }{
		{"plain", "`tshark -r`", "tshark + kwire dissector vs tshark built-in, " + num("%.0f MB", med("input.pcap.bytes")/1e6) + " capture (`tshark -r`, no tree)"},
		{"V", "`tshark -V`", "… the same with `tshark -V` (every field of every record in the tree)"},
	} {
		ours, theirs := "pcap.kafka4.plain", "pcap.tshark.plain"
		if w.key == "V" {
			ours, theirs = "pcap.kafka4", "pcap.tshark"
		}
		kc, tc := med(ours+".cpu"), med(theirs+".cpu")
		rs = append(rs, row{what: w.what,
			kwire: "CPU " + num("%.2f s", kc) + ", wall " + num("%.2f s", med(ours+".wall")) + ", " + num("%.0f MiB", med(ours+".rss")/mib),
			other: w.label + " with built-in `kafka`: CPU " + num("%.2f s", tc) + ", wall " + num("%.2f s", med(theirs+".wall")),
			ratio: num("%.2f", kc/tc) + " of its CPU (wall " + num("%.2f", med(ours+".wall")/med(theirs+".wall")) + ")", goal: "≤ 3", met: le(kc/tc, 3)})
	}
	over := (med("bomb.rss") - med("version.rss")) / mib
	rs = append(rs, row{what: fmt.Sprintf("`kwire log` of one %s zstd batch holding %s of zeros",
		num("%.0f KB", med("input.bomb.bytes")/1e3), num("%.0f MiB", med("input.bomb.zeros")/(1<<20))),
		kwire: num("%.0f MiB", over) + " over `kwire version`'s " + num("%.0f MiB", med("version.rss")/mib),
		other: "", ratio: "", goal: "≤ 64 MiB over baseline", met: le(over, 64)})

	// The proxy: its own CPU per MB forwarded and the bytes it left
	// undecoded, at the offered load of 300 MB/s (proxy-300MBps);
	// how fast it goes unpaced (proxy) is shown beside them.
	cpu, und := med("BenchmarkProxy/proxy-300MBps cpu-ms/MB"), med("BenchmarkProxy/proxy-300MBps undecoded/byte")
	rs = append(rs, row{what: "proxy, decoding 1 MiB Produce frames at 300 MB/s: CPU per MB forwarded",
		kwire: num("%.1f ms", cpu) + " (" + num("%.2f", und) + " of bytes undecoded; unpaced " +
			num("%.0f MB/s", med("BenchmarkProxy/proxy MB/s")) + ", " + num("%.2f", med("BenchmarkProxy/proxy undecoded/byte")) + " undecoded)",
		other: "Kroxylicious ~25 ms (published, not measured here)",
		ratio: "",
		goal:  "≤ 3 ms, none undecoded",
		met:   le(cpu, 3) && und == 0})
	// The proxy's service outputs (--metrics and --audit FILE, as
	// BenchmarkProxy's proxy-service case runs them) against the plain
	// proxy, same run: CPU per MB forwarded, unpaced; judged on the
	// benchmark's 1 MiB Produce frames, the 1 KiB frames (a thousand
	// exchanges a MB, where per-exchange work weighs most) beside them.
	sv, pl := med("BenchmarkProxy/proxy-service cpu-ms/MB"), med("BenchmarkProxy/proxy cpu-ms/MB")
	ssv, spl := med("BenchmarkProxySmallFrames/proxy-service cpu-ms/MB"), med("BenchmarkProxySmallFrames/proxy cpu-ms/MB")
	rs = append(rs, row{what: "proxy with --metrics + --audit vs proxy plain: CPU per MB forwarded (1 MiB Produce frames; 1 KiB frames beside)",
		kwire: num("%.2f ms", sv) + " (1 KiB frames " + num("%.2f ms", ssv) + ")",
		other: "plain proxy " + num("%.2f ms", pl) + " (1 KiB frames " + num("%.2f ms", spl) + ")",
		ratio: num("%.2f", sv/pl) + " (1 KiB frames " + num("%.2f", ssv/spl) + ")",
		goal:  "≤ 1.10",
		met:   le(sv/pl, 1.10)})
	return rs, missing
}

// count is n in words a reader takes in at once: 1M, 20k, 500.
func count(n float64) string {
	switch {
	case math.IsNaN(n):
		return "–"
	case n >= 1e6:
		return fmt.Sprintf("%gM", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%gk", n/1e3)
	}
	return fmt.Sprintf("%g", n)
}
