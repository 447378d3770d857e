package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/kwire/kwire/spec/bundle"
)

// version prints kwire's module version and the embedded Kafka releases,
// one line each; with --jars, also the Maven Central jars (and their sha256)
// each release's specs came from.
func (a *app) version(c *versionCmd) error {
	v := kwireVersion()
	fmt.Fprintf(a.stdout, "kwire %s (%s)\n", v, runtime.Version())
	fmt.Fprintf(a.stdout, "embedded Apache Kafka releases (the newest is the default; --kafka takes a release or its minor):\n")
	if err := bundle.WriteReleases(a.stdout, c.Jars); err != nil {
		return err
	}
	if !c.Jars {
		fmt.Fprintln(a.stdout, "(kwire version --jars: the Maven Central jars they came from, with their sha256)")
	}
	return nil
}

// kwireVersion is the module version kwire was built at, or "(devel)".
func kwireVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
