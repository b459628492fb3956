package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/deltaq/deltaq/configs"
)

// keyInUsage finds a configuration key named in a flag's help, e.g.
// "(eval.sync.taus)".
var keyInUsage = regexp.MustCompile(`\(([a-z_]+(?:\.[a-z_0-9]+)+)\)`)

// TestEveryFlagShowsItsConfigDefault walks the whole command tree: a flag
// whose help names a key must be bound to it, a bound key must exist, and
// --help must show the key's default from default.yaml, not the flag
// type's zero value.
func TestEveryFlagShowsItsConfigDefault(t *testing.T) {
	defaults, err := configs.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	bound := 0
	eachCommand(newRootCmd(io.Discard, io.Discard), func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			where := c.CommandPath() + " --" + f.Name
			key, ok := flagKey(f)
			if m := keyInUsage.FindStringSubmatch(f.Usage); m != nil && (!ok || key != m[1]) {
				t.Errorf("%s: help names %s but the flag is bound to %q", where, m[1], key)
			}
			if !ok {
				return
			}
			bound++
			def, ok := defaults[key]
			if !ok {
				t.Errorf("%s: bound to %s, which default.yaml lacks", where, key)
				return
			}
			if want := flagValue(def); f.DefValue != want {
				t.Errorf("%s: help default %q, want %s's default %q", where, f.DefValue, key, want)
			}
		}
		c.LocalFlags().VisitAll(check)
	})
	if bound < 20 {
		t.Errorf("only %d bound flags found; the walk missed commands", bound)
	}
}

func TestEvalSyncHelpShowsTheListDefaults(t *testing.T) {
	defaults, err := configs.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "eval", "sync", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for flag, key := range map[string]string{"taus": "eval.sync.taus", "budgets": "eval.sync.budgets", "policies": "eval.sync.policies"} {
		want := "(default " + flagValue(defaults[key]) + ")"
		if len(defaults[key].([]any)) == 0 {
			t.Fatalf("%s has no default to show", key)
		}
		line := ""
		for l := range strings.SplitSeq(out, "\n") {
			if strings.Contains(l, "--"+flag+" ") {
				line = l
			}
		}
		if !strings.Contains(line, want) {
			t.Errorf("--%s help line %q lacks %s", flag, line, want)
		}
	}
}
