package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A watch on loopback added with --allow-private is checked by serve when
// serve is given the flag too: the check fetches the page and finds its
// change, where without the flag every check was refused by the address
// guard.
func TestServeAllowPrivateChecksALoopbackWatch(t *testing.T) {
	u, set := changingPage(t, `<html><body><p id="fee">fee 0</p></body></html>`)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, _, err := run(t, "watch", "add", u, "--select", "#fee", "--every", "1s", "--user", "ada", "--allow-private", "--data", data); err != nil || !strings.Contains(out, "installed w1") {
		t.Fatalf("watch add: %v\n%s", err, out)
	}
	key, _, err := run(t, "watch", "key", "ada", "--data", data)
	if err != nil {
		t.Fatalf("watch key: %v", err)
	}
	set(`<html><body><p id="fee">fee 5</p></body></html>`)
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("watch:\n  tick: 100ms\n"), 0o644)
	srv := serveNode(t, dir, "serve", "--data", data, "--config", cfgFile, "--allow-private")

	var h struct {
		Changes  []json.RawMessage `json:"changes"`
		Failures []struct {
			Error string `json:"error"`
		} `json:"failures"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequest("GET", srv.base+"/api/v1/watches/w1/history", nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(key))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Changes) > 0 || len(h.Failures) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(h.Changes) != 1 || len(h.Failures) != 0 {
		t.Fatalf("history of w1 under serve --allow-private: %d changes, failures %+v; want the change found, no failed check", len(h.Changes), h.Failures)
	}
}

// TestServeSaysAPortTakenBeforeCatchingUp: serve listens before it brings
// the index up to date, so a --listen address in use stops it at once,
// where it used to apply the whole change feed first (hours on a large
// repository) and only then fail.
func TestServeSaysAPortTakenBeforeCatchingUp(t *testing.T) {
	data, _ := crawlFruit(t, t.TempDir())
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, stderr, err := run(t, "serve", "--data", data, "--listen", taken.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve on a port taken: %v, want the address in use", err)
	}
	if strings.Contains(stderr, "index:") {
		t.Errorf("serve caught the index up before finding its port taken:\n%s", stderr)
	}
}

// TestServeSaysAnAdminPortTakenBeforeCatchingUp: the admin listener is
// opened beside the search one, before the catch-up, so a
// server.admin.listen in use stops serve at once and names the key.
func TestServeSaysAnAdminPortTakenBeforeCatchingUp(t *testing.T) {
	dir := t.TempDir()
	data, _ := crawlFruit(t, dir)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfgFile := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfgFile, []byte("server:\n  admin:\n    listen: "+taken.Addr().String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run(t, "serve", "--data", data, "--config", cfgFile, "--listen", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), "server.admin.listen") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve on an admin port taken: %v, want server.admin.listen in use", err)
	}
	if strings.Contains(stderr, "index:") {
		t.Errorf("serve caught the index up before finding its admin port taken:\n%s", stderr)
	}
}
