package main

import (
	"strings"
	"testing"
)

func TestClusterFlagsGiveClearErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1"}, `cluster.node = ""`},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a.b"}, `cluster.node = "a.b"`},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a", "--wait-nodes", "0"}, "--wait-nodes = 0"},
		{[]string{"crawl", "--data", t.TempDir(), "--cluster", "nats://127.0.0.1:1", "--node", "a"}, "connect nats://127.0.0.1:1"},
		{[]string{"cluster", "status"}, "--cluster"},
		{[]string{"cluster", "serve", "--listen", "nohost", "--store", t.TempDir()}, `--listen = "nohost"`},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:0"}, "--store"},
		{[]string{"cluster", "serve", "--listen", "127.0.0.1:0", "--store", t.TempDir(), "--cluster-listen", "127.0.0.1:0", "--routes", "http://x"}, `--routes: "http://x"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}
