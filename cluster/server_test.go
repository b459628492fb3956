package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesABadStoreAndRoutesWithoutACluster: both are refused
// before the NATS server starts, naming the flag: a store that is a
// file, where NATS used to end the process with a log line of its own,
// and routes given without the cluster listener they need, which used to
// start a lone server.
func TestServeRefusesABadStoreAndRoutesWithoutACluster(t *testing.T) {
	file := filepath.Join(t.TempDir(), "store")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", StoreDir: file}, "--store " + file + ": must be a directory deltaq can write"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Routes: []string{"nats-route://127.0.0.1:6222"}},
			"--routes nats-route://127.0.0.1:6222: routes join a cluster, which needs --cluster-listen"},
	} {
		if err := Serve(t.Context(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}
