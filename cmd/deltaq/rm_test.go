package main

import (
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

// searchData opens the repository and index under data and returns the
// URLs that match query.
func searchData(t *testing.T, data, query string) []string {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := repo.Open(filepath.Join(data, repoDir), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix, err := index.Open(indexPath(data), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	q, err := index.ParseQuery(query, cfg.Index.Limits())
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.URL)
	}
	return out
}

func TestRmRemovesFromRepositoryAndIndexAndABackupKeepsWhatWasThere(t *testing.T) {
	page := func(body string) string { return "<html><title>t</title><body>" + body + "</body></html>" }
	fx := archivetest.Fixture{Name: "fruit", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: page(`apple <a href="/a">a</a> <a href="/c">c</a>`)},
		{URL: "/a", First: 0, Last: 0, Body: page("apple banana")},
		{URL: "/c", First: 0, Last: 0, Body: page("cherry orchard")},
	}}
	_, rs := replaytest.Fixture(t, fx, replay.Options{})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  sitemaps: false\n  politeness:\n    overrides:\n      - {host: fruit.test, min_delay: 0s, per_host: 2}\n"), 0o644)
	if _, _, err := run(t, "crawl", "--config", cfgFile, "--data", data, "--allow-private",
		"--resolve", "fruit.test=127.0.0.1:"+port, "--seeds", "http://fruit.test/"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	if got := searchData(t, data, "cherry"); len(got) != 1 || got[0] != "http://fruit.test/c" {
		t.Fatalf("before rm, cherry finds %v", got)
	}

	out, _, err := run(t, "rm", "--data", data, "http://fruit.test/c")
	if err != nil || !strings.Contains(out, "removed 1 pages") || !strings.Contains(out, "1 documents removed") {
		t.Fatalf("rm: %v\n%s", err, out)
	}
	if got := searchData(t, data, "cherry"); len(got) != 0 {
		t.Errorf("after rm, cherry still finds %v", got)
	}
	if got := searchData(t, data, "apple"); len(got) != 2 {
		t.Errorf("after rm of /c, apple finds %v, want / and /a", got)
	}
	cfg, _ := configs.Load(configs.Sources{Env: []string{}})
	db, err := repo.Open(filepath.Join(data, repoDir), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Page("http://fruit.test/c"); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("page /c still in the repository: %v", err)
	}
	if vs, err := db.Versions(t.Context(), "http://fruit.test/c", false); err != nil || len(vs) != 0 {
		t.Errorf("versions of /c left: %d, %v", len(vs), err)
	}
	if in, err := db.InLinks(t.Context(), "http://fruit.test/a"); err != nil || len(in) != 1 {
		t.Errorf("in-links of /a: %v, %v (want the home page's only)", in, err)
	}
	db.Close()

	// A backup taken now keeps / and /a through the removal of the host.
	backup := filepath.Join(dir, "backup")
	if out, _, err := run(t, "backup", "--data", data, backup); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	if _, _, err := run(t, "backup", "--data", data, backup); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a backup over an existing directory: %v", err)
	}

	out, _, err = run(t, "rm", "--data", data, "--host", "fruit.test")
	if err != nil || !strings.Contains(out, "removed 2 pages") {
		t.Fatalf("rm --host: %v\n%s", err, out)
	}
	if got := searchData(t, data, "apple"); len(got) != 0 {
		t.Errorf("after rm --host, apple still finds %v", got)
	}
	out, _, err = run(t, "hosts", "--data", data)
	if err != nil || !strings.Contains(out, "0 hosts") {
		t.Errorf("hosts after rm --host: %v\n%s", err, out)
	}
	if _, _, err := run(t, "rm", "--data", data); err == nil {
		t.Error("rm with neither URLs nor --host succeeded")
	}

	// Restored (used as the data directory), the backup searches as the
	// data did when it was taken, and the repository has its pages.
	if got := searchData(t, backup, "apple"); len(got) != 2 {
		t.Errorf("the backup's index finds %v for apple, want / and /a", got)
	}
	out, _, err = run(t, "hosts", "--data", backup)
	if err != nil || !strings.Contains(out, "1 hosts") || !strings.Contains(out, "fruit.test") {
		t.Errorf("hosts of the backup: %v\n%s", err, out)
	}
}
