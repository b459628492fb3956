package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// keyAnnotation marks a flag with the configuration key it sets. It is the
// one record of that tie: load reads it to apply the flags a user set, and
// showDefaults reads it to put the key's default into --help.
const keyAnnotation = "deltaq/config-key"

// bind ties flags of fs to configuration keys (flag name → key).
func bind(fs *pflag.FlagSet, keys map[string]string) {
	for name, key := range keys {
		if err := fs.SetAnnotation(name, keyAnnotation, []string{key}); err != nil {
			// A bound flag that does not exist is a wiring bug; the command
			// tree test finds it before a user could.
			panic(fmt.Sprintf("bind --%s to %s: %v", name, key, err))
		}
	}
}

// flagKey is the configuration key f sets, if any.
func flagKey(f *pflag.Flag) (string, bool) {
	k := f.Annotations[keyAnnotation]
	if len(k) != 1 {
		return "", false
	}
	return k[0], true
}

// boundKeys maps each flag of fs that sets a key to that key.
func boundKeys(fs *pflag.FlagSet) map[string]string {
	keys := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if k, ok := flagKey(f); ok {
			keys[f.Name] = k
		}
	})
	return keys
}

// showDefaults sets the help default of every bound flag in the tree under
// cmd to its key's default, so --help shows what a run without the flag
// uses rather than the flag type's zero value.
func showDefaults(cmd *cobra.Command, defaults map[string]any) {
	show := func(f *pflag.Flag) {
		if k, ok := flagKey(f); ok {
			if v, ok := defaults[k]; ok {
				f.DefValue = flagValue(v)
			}
		}
	}
	eachCommand(cmd, func(c *cobra.Command) {
		c.PersistentFlags().VisitAll(show)
		c.Flags().VisitAll(show)
	})
}

// dialFlagsInstallOnly notes in the help of cmd's --resolve and
// --allow-private that they reach only cmd's own fetch: what cmd installs
// is fetched again by serve or run, which refuse the same address unless
// given the flags too.
func dialFlagsInstallOnly(cmd *cobra.Command) {
	for _, name := range []string{"resolve", "allow-private"} {
		f := cmd.Flags().Lookup(name)
		f.Usage += "; the install fetch only: serve and run need it too to check the page"
	}
}

// eachCommand calls f on cmd and on every command under it.
func eachCommand(cmd *cobra.Command, f func(*cobra.Command)) {
	f(cmd)
	for _, c := range cmd.Commands() {
		eachCommand(c, f)
	}
}

// flagValue renders a configuration value the way pflag prints a flag of
// its kind: lists as [a,b].
func flagValue(v any) string {
	if items, ok := v.([]any); ok {
		parts := make([]string, len(items))
		for i, x := range items {
			parts[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(v)
}
