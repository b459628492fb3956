package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/deltaq/deltaq/cluster/natstest"
)

// clusterNodeConfig makes a crawl node of a cluster on one NATS server.
const clusterNodeConfig = "cluster:\n  replicas: 1\n  shards: 4\n  lease_ttl: 3s\n"

// onePageSite serves one HTML page at / on loopback.
func onePageSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>home</title><body>the one page of this site</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// refusedURL is a nats:// URL on loopback where nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "nats://" + addr
}

// natsWithoutJetStream starts a NATS server in process that accepts
// clients but has no JetStream, and returns its client URL.
func natsWithoutJetStream(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(20 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	return s.ClientURL()
}

// fileState is what treeState records of a file: a change to any of it
// is a change to the file.
type fileState struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
}

// treeState records every file and directory under dir.
func treeState(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fileState{info.Mode(), info.Size(), info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusterCrawlThatCannotJoinCreatesNothing: a crawl node joins its
// cluster before it makes its data directory, so one whose NATS servers
// refuse the connection, or have no JetStream, fails naming cluster.url
// and the URL and leaves no directory behind, where it used to leave an
// empty repository that the next run took for one holding nothing.
func TestClusterCrawlThatCannotJoinCreatesNothing(t *testing.T) {
	refused := refusedURL(t)
	noJS := natsWithoutJetStream(t)
	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"refused", refused, []string{"cluster.url", refused, "dial tcp " + strings.TrimPrefix(refused, "nats://"), "connection refused"}},
		{"no JetStream", noJS, []string{"jetstream not enabled"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			_, _, err := run(t, "crawl", "--data", data, "--cluster", c.url, "--node", "a", "--seeds", "http://a.test/")
			if err == nil {
				t.Fatal("a crawl node that cannot join its cluster succeeded")
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s after the failed join: %v, want nothing there", data, err)
			}
		})
	}
}

// TestClusterCrawlThatCannotJoinLeavesARepositoryAlone: a failed join
// does not touch a repository already there: no file under the data
// directory changes, and the repository opens with its pages.
func TestClusterCrawlThatCannotJoinLeavesARepositoryAlone(t *testing.T) {
	srv := onePageSite(t)
	data := filepath.Join(t.TempDir(), "data")
	if out, _, err := run(t, "crawl", "--data", data, "--allow-private", "--seeds", srv.URL+"/"); err != nil {
		t.Fatalf("crawl alone: %v\n%s", err, out)
	}
	before := treeState(t, data)
	url := refusedURL(t)
	_, _, err := run(t, "crawl", "--data", data, "--allow-private", "--cluster", url, "--node", "a")
	if err == nil || !strings.Contains(err.Error(), "cluster.url") || !strings.Contains(err.Error(), url) {
		t.Fatalf("crawl node with an unreachable cluster: %v, want an error naming cluster.url and %s", err, url)
	}
	after := treeState(t, data)
	for path, st := range before {
		if got, ok := after[path]; !ok {
			t.Errorf("%s is gone after the failed join", path)
		} else if got != st {
			t.Errorf("%s changed in the failed join: %+v, was %+v", path, got, st)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s appeared in the failed join", path)
		}
	}
	if pages := fetchedPages(t, data); !pages[srv.URL+"/"] {
		t.Errorf("the repository no longer holds %s/: %v", srv.URL, pages)
	}
}

// TestClusterCrawlNodeJoinsThenCrawls: a node that joins before it opens
// its repository still crawls into it.
func TestClusterCrawlNodeJoinsThenCrawls(t *testing.T) {
	ns := natstest.Start(t, 1)
	srv := onePageSite(t)
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "node.yaml")
	if err := os.WriteFile(cfgFile, []byte(clusterNodeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	out, _, err := run(t, "crawl", "--config", cfgFile, "--data", data, "--allow-private",
		"--cluster", ns.URL(), "--node", "a", "--seeds", srv.URL+"/")
	if err != nil {
		t.Fatalf("crawl node: %v\n%s", err, out)
	}
	if !strings.Contains(out, "cluster: node a;") {
		t.Errorf("no cluster summary:\n%s", out)
	}
	if pages := fetchedPages(t, data); !pages[srv.URL+"/"] {
		t.Errorf("the node's repository does not hold %s/: %v", srv.URL, pages)
	}
	// The same seeds again, into a new repository, on the same NATS
	// store: JetStream drops the handoffs as duplicates within
	// cluster.dedup, and the crawl says why it fetched nothing.
	out, _, err = run(t, "crawl", "--config", cfgFile, "--data", filepath.Join(dir, "again"), "--allow-private",
		"--cluster", ns.URL(), "--node", "a", "--seeds", srv.URL+"/")
	if err != nil {
		t.Fatalf("second crawl: %v\n%s", err, out)
	}
	if !strings.Contains(out, "every URL handed off was queued by the cluster within cluster.dedup (24h0m0s) before") {
		t.Errorf("a crawl of seeds the cluster queued before does not say why it fetched nothing:\n%s", out)
	}
}
