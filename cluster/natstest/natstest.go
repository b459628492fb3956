// Package natstest starts real NATS servers with JetStream in the test
// process, on loopback ports, for the tests of package cluster.
package natstest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is n embedded servers routed into one JetStream cluster.
type Cluster struct {
	Servers []*server.Server
}

// readyWait is how long Start gives each server to listen: a server whose
// cluster port was taken never does (OnFreePorts).
const readyWait = 20 * time.Second

// Start starts n servers (n = 1 is a single server without clustering),
// each with its own JetStream store under tb.TempDir(), and waits until
// JetStream has a meta leader. They shut down when the test ends.
func Start(tb testing.TB, n int) *Cluster {
	tb.Helper()
	var c *Cluster
	// Every server routes to every other, so the cluster ports are chosen
	// before any server starts.
	OnFreePorts(tb, n, func(ports []int) (err error) {
		c, err = start(tb, ports)
		return err
	})
	// The servers elect a JetStream meta leader among themselves and learn
	// of each other; until then no replicated stream or bucket can be placed.
	deadline := time.Now().Add(60 * time.Second)
	for !c.hasLeader() {
		if time.Now().After(deadline) {
			tb.Fatalf("natstest: no JetStream meta leader among %d servers", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// startAttempts bounds OnFreePorts.
const startAttempts = 3

// OnFreePorts calls start with n loopback ports free at the time of the
// call, and again with others while it fails, startAttempts times at
// most: a port found free can be taken before start binds it (go test
// runs packages in parallel, and every outgoing connection takes a port
// from the same range). A start that fails must stop what it started.
func OnFreePorts(tb testing.TB, n int, start func(ports []int) error) {
	tb.Helper()
	for attempt := 1; ; attempt++ {
		err := start(FreePorts(tb, n))
		if err == nil {
			return
		}
		if attempt == startAttempts {
			tb.Fatalf("natstest: %v, %d times", err, attempt)
		}
		tb.Logf("natstest: %v; trying other ports", err)
	}
}

// start starts a server for each of ports, its cluster port, and shuts
// them all down if one is not ready to serve within readyWait.
func start(tb testing.TB, ports []int) (*Cluster, error) {
	tb.Helper()
	c := &Cluster{}
	n := len(ports)
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	for i := range n {
		opts := &server.Options{
			ServerName: fmt.Sprintf("nats-%d", i),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   tb.TempDir(),
			NoLog:      true,
			NoSigs:     true,
		}
		if n > 1 {
			opts.Cluster = server.ClusterOpts{Name: "deltaq-test", Host: "127.0.0.1", Port: ports[i]}
			opts.Routes = routes
		}
		s, err := server.NewServer(opts)
		if err != nil {
			c.shutdown()
			return nil, fmt.Errorf("server %d: %w", i, err)
		}
		go s.Start()
		c.Servers = append(c.Servers, s)
	}
	for i, s := range c.Servers {
		if !s.ReadyForConnections(readyWait) {
			c.shutdown()
			return nil, fmt.Errorf("server %d (cluster port %d) not ready within %v", i, ports[i], readyWait)
		}
	}
	tb.Cleanup(c.shutdown)
	return c, nil
}

// shutdown shuts every server down.
func (c *Cluster) shutdown() {
	for _, s := range c.Servers {
		s.Shutdown()
	}
}

// FreePorts finds n loopback ports free at the time of the call.
func FreePorts(tb testing.TB, n int) []int {
	tb.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("natstest: %v", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		if err := l.Close(); err != nil {
			tb.Fatalf("natstest: %v", err)
		}
	}
	return ports
}

// hasLeader reports whether JetStream can place replicated assets: a meta
// leader sees every server as a peer with current stats, and every
// server's copy of the meta state is current.
func (c *Cluster) hasLeader() bool {
	if len(c.Servers) == 1 {
		return c.Servers[0].JetStreamEnabled()
	}
	ready := false
	for _, s := range c.Servers {
		if !s.JetStreamIsCurrent() {
			return false
		}
		if s.JetStreamIsLeader() && len(s.JetStreamClusterPeers()) == len(c.Servers) {
			ready = true
		}
	}
	return ready
}

// JetStream connects a client to the servers still running, closed when
// the test ends.
func (c *Cluster) JetStream(tb testing.TB) jetstream.JetStream {
	tb.Helper()
	nc, err := nats.Connect(c.URL())
	if err != nil {
		tb.Fatalf("natstest: connect: %v", err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatalf("natstest: jetstream: %v", err)
	}
	return js
}

// URL is the client URL list of every server still running.
func (c *Cluster) URL() string {
	var urls []string
	for _, s := range c.Servers {
		if s.Running() {
			urls = append(urls, s.ClientURL())
		}
	}
	return strings.Join(urls, ",")
}
