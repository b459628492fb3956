package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalRelationRefusesTheOtherModesFlags: a flag only the other mode
// reads is refused, naming it and the mode, where it used to be dropped
// and the run to succeed without it.
func TestEvalRelationRefusesTheOtherModesFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--synth", "citations", "--seeds", "1", "--archive", "/nonexistent/a"}, "--archive with --synth citations: only the archive replay (no --synth) reads it"},
		{[]string{"--synth", "citations", "--seeds", "1", "--log", "/nonexistent/log"}, "--log with --synth citations"},
		{[]string{"--synth", "citations", "--seeds", "1", "--budgets", "5"}, "--budgets with --synth citations"},
		{[]string{"--seeds", "1", "--archive", t.TempDir()}, "--seeds without --synth: only --synth citations reads it"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			_, _, err := run(t, append([]string{"eval", "relation", "--out", out}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written by a refused run", out)
			}
		})
	}
	// Each mode still runs with its own flags.
	if _, _, err := run(t, "eval", "relation", "--synth", "citations", "--seeds", "1", "--out", t.TempDir()); err != nil {
		t.Fatalf("--synth citations --seeds 1: %v", err)
	}
}
