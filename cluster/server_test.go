package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster/natstest"
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
	free := fmt.Sprintf("127.0.0.1:%d", natstest.FreePorts(t, 1)[0])
	routes := []string{"nats-route://127.0.0.1:6222"}
	for _, c := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Name: "a", Listen: busy, StoreDir: t.TempDir()}, "--listen = \"" + busy + "\": cannot listen there"},
		{ServerConfig{Name: "a", Listen: free, Cluster: busy, Routes: routes, StoreDir: t.TempDir()}, "--cluster-listen = \"" + busy + "\": cannot listen there"},
		{ServerConfig{Name: "a", Listen: "127.0.0.1:6333", Cluster: "127.0.0.1:6333", Routes: routes, StoreDir: t.TempDir()}, "--cluster-listen = \"127.0.0.1:6333\": must differ from --listen"},
		{ServerConfig{Name: "a", Listen: free, StoreDir: file}, "--store " + file + ": must be a directory deltaq can write"},
		{ServerConfig{Name: "a", Listen: free, StoreDir: t.TempDir(), Routes: routes},
			"--routes nats-route://127.0.0.1:6222: routes join a cluster, which needs --cluster-listen"},
	} {
		if err := Serve(t.Context(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestServeRefusesPortZeroAndAClusterWithoutRoutes: NATS reads port 0 as
// its default client port 4222 (or as no route listener), and a cluster
// listener without routes ends the process with a log line of NATS's
// own; each is refused before the server starts, naming the flags.
func TestServeRefusesPortZeroAndAClusterWithoutRoutes(t *testing.T) {
	free := fmt.Sprintf("127.0.0.1:%d", natstest.FreePorts(t, 1)[0])
	routes := []string{"nats-route://127.0.0.1:6222"}
	for _, c := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Name: "a", Listen: "127.0.0.1:0", StoreDir: t.TempDir()}, `--listen = "127.0.0.1:0": must have a port in [1, 65535]; NATS reads 0 as its default 4222`},
		{ServerConfig{Name: "a", Listen: free, Cluster: "127.0.0.1:0", Routes: routes, StoreDir: t.TempDir()}, `--cluster-listen = "127.0.0.1:0": must have a port in [1, 65535]; NATS reads 0 as no route listener`},
		{ServerConfig{Name: "a", Listen: free, Cluster: "127.0.0.1:36222", StoreDir: t.TempDir()}, "--cluster-listen 127.0.0.1:36222: a cluster needs --routes"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		err := Serve(ctx, c.cfg, nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}
