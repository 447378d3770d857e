//go:build !linux

package capture

import "errors"

// OpenInterface captures from a network interface on Linux only; elsewhere
// it returns an error: capture with tcpdump and pipe the capture.
func OpenInterface(name string, o InterfaceOptions) (*Reader, error) {
	return nil, errors.New("kwire captures from an interface on Linux only: capture with tcpdump and pipe the capture")
}
