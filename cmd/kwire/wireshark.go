package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/wireshark"
)

// wiresharkCmd is `kwire wireshark`: write a Wireshark Lua dissector
// generated from the specs (see package wireshark).
type wiresharkCmd struct {
	Out         string `name:"out" short:"o" help:"Write the dissector to this file instead of standard output." placeholder:"FILE" type:"path" xor:"dest"`
	Install     bool   `help:"Write the dissector to Wireshark's personal Lua plugin folder, ~/.local/lib/wireshark/plugins/kafka4.lua, where wireshark and tshark load it at start." xor:"dest"`
	AllReleases bool   `name:"all-releases" help:"One dissector for every embedded release: each API version as the newest release that has it defines it (instead of --kafka or --specs)."`
}

// pluginFile is where --install writes, under the home directory: the
// personal plugin folder of Wireshark 3.x and 4.x on Linux and macOS.
var pluginFile = filepath.Join(".local", "lib", "wireshark", "plugins", "kafka4.lua")

func (a *app) wireshark(c *wiresharkCmd) error {
	var sets []*spec.Set
	if c.AllReleases {
		if a.cli.Kafka != "" || a.cli.Specs != "" {
			return usagef("--all-releases takes every embedded release: give it without --kafka or --specs")
		}
		all, err := spec.EmbeddedAll()
		if err != nil {
			return err
		}
		sets = all
	} else {
		set, err := a.loadSet()
		if err != nil {
			return err
		}
		sets = []*spec.Set{set}
	}
	lua, err := wireshark.Generate(sets...)
	if err != nil {
		return err
	}
	out := c.Out
	if c.Install {
		home := a.getenv("HOME")
		if home == "" {
			return fmt.Errorf("--install: HOME is not set, so the plugin folder is unknown; write the file with -o instead")
		}
		out = filepath.Join(home, pluginFile)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
	}
	if out == "" {
		_, err := a.stdout.Write(lua)
		return err
	}
	if err := os.WriteFile(out, lua, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "kwire wireshark: wrote %s (%d bytes, protocol %s)\n", out, len(lua), wireshark.ProtoName)
	if c.Install {
		fmt.Fprintf(a.stderr, "wireshark and tshark load it at start; check with: tshark -G protocols | grep %s\n", wireshark.ProtoName)
	} else {
		fmt.Fprintf(a.stderr, "use it with: tshark -X lua_script:%s -r CAPTURE (or kwire wireshark --install)\n", out)
	}
	return nil
}
