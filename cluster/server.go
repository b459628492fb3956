package cluster

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/deltaq/deltaq/internal/hostport"
)

// ServerConfig says how to run one NATS server with JetStream for a
// cluster of crawl nodes: `deltaq cluster serve`, so that a small cluster
// needs no other program. A production cluster may run nats-server
// itself with the same settings (JetStream on, a cluster block naming
// the routes); the nodes need only its client URL.
type ServerConfig struct {
	Name     string   // server name, unique among the servers
	Listen   string   // client address, host:port
	Cluster  string   // route address for the other servers, host:port; "" serves alone
	Routes   []string // the other servers' route URLs, nats-route://host:port
	StoreDir string   // JetStream's directory
}

// readyWait bounds how long Serve waits for the server to accept clients.
const readyWait = time.Minute

// Serve runs the server until ctx ends; ready, if set, receives its client
// URL once it accepts connections.
func Serve(ctx context.Context, cfg ServerConfig, ready func(url string)) error {
	host, port, err := splitAddr("--listen", cfg.Listen)
	if err != nil {
		return err
	}
	if cfg.StoreDir == "" {
		return fmt.Errorf("--store: a JetStream directory is required")
	}
	// NATS checks the directory itself only once it starts, and then
	// ends the process with a log line of its own.
	if err := os.MkdirAll(cfg.StoreDir, 0o755); err != nil {
		return fmt.Errorf("--store %s: must be a directory deltaq can write: %w", cfg.StoreDir, err)
	}
	if cfg.Cluster == "" && len(cfg.Routes) > 0 {
		return fmt.Errorf("--routes %s: routes join a cluster, which needs --cluster-listen", strings.Join(cfg.Routes, ","))
	}
	// NATS would end the process: a JetStream cluster needs routes.
	if cfg.Cluster != "" && len(cfg.Routes) == 0 {
		return fmt.Errorf("--cluster-listen %s: a cluster needs --routes naming the other servers; leave both out to serve alone", cfg.Cluster)
	}
	opts := &server.Options{ServerName: cfg.Name, Host: host, Port: port, JetStream: true, StoreDir: cfg.StoreDir, NoSigs: true}
	if cfg.Cluster != "" {
		chost, cport, err := splitAddr("--cluster-listen", cfg.Cluster)
		if err != nil {
			return err
		}
		opts.Cluster = server.ClusterOpts{Name: "deltaq", Host: chost, Port: cport}
		for _, r := range cfg.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Scheme != "nats-route" || u.Host == "" {
				return fmt.Errorf("--routes: %q must be a URL such as nats-route://host:6222", r)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	if err := portsFree(cfg); err != nil {
		return err
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("cluster: NATS server: %w", err)
	}
	s.ConfigureLogger() // the server's own log, on standard error
	go s.Start()
	defer func() {
		s.Shutdown()
		s.WaitForShutdown()
	}()
	if !s.ReadyForConnections(readyWait) {
		return fmt.Errorf("cluster: NATS server on %s not ready after %v", cfg.Listen, readyWait)
	}
	if ready != nil {
		ready(s.ClientURL())
	}
	<-ctx.Done()
	return nil
}

// portsFree refuses addresses the server could not listen on: NATS
// reports a port it cannot take by ending the process with a log line of
// its own, so each is tried here first (and let go at once).
func portsFree(cfg ServerConfig) error {
	if cfg.Cluster != "" && cfg.Cluster == cfg.Listen {
		return fmt.Errorf("--cluster-listen = %q: must differ from --listen: routes and clients need a port each", cfg.Cluster)
	}
	for _, a := range []struct{ flag, addr string }{{"--listen", cfg.Listen}, {"--cluster-listen", cfg.Cluster}} {
		if a.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			return fmt.Errorf("%s = %q: cannot listen there: %w", a.flag, a.addr, err)
		}
		ln.Close()
	}
	return nil
}

// splitAddr parses host:port for the flag named flag. Port 0 is refused:
// NATS reads it not as "any free port" but as its default client port,
// 4222, or, for routes, as no route listener at all.
func splitAddr(flag, addr string) (string, int, error) {
	host, port, err := hostport.Split(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%s = %q: must be %s: %w", flag, addr, hostport.Rule, err)
	}
	if port == 0 {
		reads := "its default 4222"
		if flag == "--cluster-listen" {
			reads = "no route listener"
		}
		return "", 0, fmt.Errorf("%s = %q: must have a port in [1, 65535]; NATS reads 0 as %s", flag, addr, reads)
	}
	return host, port, nil
}
