module github.com/kwire/kwire

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/klauspost/compress v1.20.4
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	golang.org/x/term v0.48.0
)

require golang.org/x/sys v0.50.0 // indirect
