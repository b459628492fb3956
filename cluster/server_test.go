package cluster

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesABadStoreAndRoutesWithoutACluster: each is refused
// before the NATS server starts, naming the flag: a store that is a
// file and a port that is taken, where NATS used to end the process with
// a log line of its own, one address for clients and routes, and routes
// given without the cluster listener they need, which used to start a
// lone server.
func TestServeRefusesABadStoreAndRoutesWithoutACluster(t *testing.T) {
	file := filepath.Join(t.TempDir(), "store")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	for _, c := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Name: "a", Listen: busy, StoreDir: t.TempDir()}, "--listen = \"" + busy + "\": cannot listen there"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", Cluster: busy, StoreDir: t.TempDir()}, "--cluster-listen = \"" + busy + "\": cannot listen there"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:6333", Cluster: "127.0.0.1:6333", StoreDir: t.TempDir()}, "--cluster-listen = \"127.0.0.1:6333\": must differ from --listen"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", StoreDir: file}, "--store " + file + ": must be a directory deltaq can write"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Routes: []string{"nats-route://127.0.0.1:6222"}},
			"--routes nats-route://127.0.0.1:6222: routes join a cluster, which needs --cluster-listen"},
	} {
		if err := Serve(t.Context(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}
