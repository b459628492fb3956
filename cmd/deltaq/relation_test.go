package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
)

// TestRelationCommands declares a relation over a replayed archive with
// its added search, adds three pages, syncs them by ID (once refused by
// the address guard), moves the archive to a week where one description
// changed, and syncs again through the search: the change shows, field by
// field, and the list counts it. Then deltaq serve syncs a new relation
// by itself.
func TestRelationCommands(t *testing.T) {
	page := func(cmd, desc string) string {
		return fmt.Sprintf(`<html><head><title>%s - tldr pages (common)</title><meta name="description" content="%s"></head><body>%s</body></html>`, cmd, desc, desc)
	}
	fx := archivetest.Fixture{Name: "cmds", Weeks: 2, Intervals: []archivetest.Interval{
		{URL: "/common/git-add.html", First: 0, Last: 1, Body: page("git add", "Stage files.")},
		{URL: "/common/git-commit.html", First: 0, Last: 0, Body: page("git commit", "Commit files.")},
		{URL: "/common/git-commit.html", First: 1, Last: 1, Body: page("git commit", "Commit staged files.")},
		{URL: "/common/tar.html", First: 0, Last: 1, Body: page("tar", "Archiving utility.")},
	}}
	_, rs := replaytest.Fixture(t, fx, replay.Options{Search: replay.SearchOptions{Enabled: true, PageSize: 10, MaxResults: 20}})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  resolve: [\"cmds.test=127.0.0.1:"+port+"\"]\nrelation:\n  quota: 0\n  quota_period: 0s\n"), 0o644)
	ids := filepath.Join(dir, "ids.tsv")
	os.WriteFile(ids, []byte("/common/git-add.html\t5\n/common/git-commit.html\t9\n/common/tar.html\t1\n"), 0o644)

	if _, _, err := run(t, "relation", "create", "cmds", "--config", cfgFile, "--data", data,
		"--search", "http://cmds.test/search?q={q}&page={page}", "--item", "http://cmds.test{id}",
		"--extract", "title=css:a.title|css:title", "--extract", "description=css:p.description|css:meta[name=description]@content",
		"--keywords", "title,description", "--weight", "column"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := run(t, "relation", "add", "cmds", "--config", cfgFile, "--data", data, "--ids", ids); err != nil || !strings.Contains(out, "3 new") {
		t.Fatalf("add: %q %v", out, err)
	}
	// The source is on loopback: the crawler's address guard refuses it
	// unless allowed, as it refuses a crawl there.
	if out, _, err := run(t, "relation", "sync", "cmds", "--config", cfgFile, "--data", data); err == nil ||
		!strings.Contains(err.Error(), "is a loopback address") || !strings.Contains(err.Error(), "--allow-private") || !strings.Contains(out, "sent 0 requests") {
		t.Fatalf("sync from loopback without --allow-private:\n%s%v", out, err)
	}
	out, _, err := run(t, "relation", "sync", "cmds", "--allow-private", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(out, "3 records read (3 by ID)") {
		t.Fatalf("first sync:\n%s%v", out, err)
	}
	if err := rs.SetWeek(1); err != nil {
		t.Fatal(err)
	}
	dry, _, err := run(t, "relation", "sync", "cmds", "--dry-run", "--allow-private", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(dry, "dry run: no request sent") || !strings.Contains(dry, "order  query") {
		t.Fatalf("dry run:\n%s%v", dry, err)
	}
	out, _, err = run(t, "relation", "sync", "cmds", "--allow-private", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(out, "1 changed") {
		t.Fatalf("second sync:\n%s%v", out, err)
	}
	show, _, err := run(t, "relation", "show", "cmds", "--stalest", "2", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(show, "2 of 3 records shown") || !strings.Contains(show, "description=Commit staged files.") {
		t.Fatalf("show:\n%s%v", show, err)
	}
	list, _, err := run(t, "relation", "list", "--config", cfgFile, "--data", data)
	if err != nil || !regexp.MustCompile(`(?m)^cmds +3 +0 +1 +20\d\d-.* http://cmds.test/search\?q=\{q\}&page=\{page\}$`).MatchString(list) {
		t.Fatalf("list: want cmds with 3 records, none missing, 1 change, a last sync:\n%s%v", list, err)
	}
	if _, _, err := run(t, "relation", "sync", "nope", "--config", cfgFile, "--data", data); err == nil || !strings.Contains(err.Error(), `no such relation: "nope"`) {
		t.Errorf("sync of an unknown relation: %v", err)
	}
	// deltaq serve keeps relations fresh itself (relation.sync_every): a
	// relation declared and never synced is synced at once.
	if _, _, err := run(t, "relation", "create", "later", "--config", cfgFile, "--data", data,
		"--search", "http://cmds.test/search?q={q}&page={page}", "--item", "http://cmds.test{id}",
		"--extract", "title=css:a.title|css:title", "--keywords", "title"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "relation", "add", "later", "--config", cfgFile, "--data", data, "--ids", ids); err != nil {
		t.Fatal(err)
	}
	serveCfg := filepath.Join(dir, "serve.yaml")
	os.WriteFile(serveCfg, []byte("crawler:\n  allow_private: true\n  resolve: [\"cmds.test=127.0.0.1:"+port+"\"]\nrelation:\n  quota: 0\n  quota_period: 0s\n  sync_every: 1h\n"), 0o644)
	srvProc := serveNode(t, dir, "serve", "--data", data, "--config", serveCfg)
	var later struct {
		Relations []struct {
			Name     string     `json:"name"`
			Records  int        `json:"records"`
			LastSync *time.Time `json:"last_sync"`
		} `json:"relations"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(srvProc.base + "/api/v1/relations")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&later)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(later.Relations) == 2 && later.Relations[1].Name == "later" && later.Relations[1].LastSync != nil || time.Now().After(deadline) {
			break
		}
	}
	if len(later.Relations) != 2 || later.Relations[1].Name != "later" || later.Relations[1].LastSync == nil || later.Relations[1].Records != 3 {
		t.Fatalf("GET /api/v1/relations from serve: %+v, want later synced by the server, 3 records", later.Relations)
	}
}

// relationSite is a source for the relation commands: /item/ok is an item
// page, /item/bad answers 500, /search finds nothing.
func relationSite(t *testing.T) (cfgFile, data string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/item/ok":
			fmt.Fprint(w, `<html><head><title>ok item</title></head></html>`)
		case "/item/bad":
			w.WriteHeader(http.StatusInternalServerError)
		case "/search":
			fmt.Fprint(w, `<html><p class="total" data-total="0"></p></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	data = filepath.Join(dir, "data")
	cfgFile = filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  allow_private: true\n  resolve: [\"rel.test=127.0.0.1:"+port+"\"]\nrelation:\n  quota: 0\n  quota_period: 0s\n"), 0o644)
	if _, _, err := run(t, "relation", "create", "items", "--config", cfgFile, "--data", data,
		"--search", "http://rel.test/search?q={q}&page={page}", "--item", "http://rel.test{id}", "--extract", "title=css:a|css:title"); err != nil {
		t.Fatal(err)
	}
	return cfgFile, data
}

// TestRelationSyncReportsFailedFetches: a record its source cannot answer
// is named with its error by sync and show, does not stop the sync, and
// can be removed.
func TestRelationSyncReportsFailedFetches(t *testing.T) {
	cfgFile, data := relationSite(t)
	ids := filepath.Join(t.TempDir(), "ids")
	os.WriteFile(ids, []byte("/item/bad\t9\n/item/ok\n"), 0o644)
	if _, _, err := run(t, "relation", "add", "items", "--config", cfgFile, "--data", data, "--ids", ids); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "relation", "sync", "items", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(out, "1 records read (1 by ID)") || !strings.Contains(out, "1 fetches by ID failed") ||
		!regexp.MustCompile(`(?m)^  /item/bad: relation: http://rel.test/item/bad: status 500$`).MatchString(out) {
		t.Fatalf("sync past a record that answers 500:\n%s%v", out, err)
	}
	show, _, err := run(t, "relation", "show", "items", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(show, "(last fetch by ID failed 20") || !strings.Contains(show, "status 500)") {
		t.Fatalf("show gives no last fetch error:\n%s%v", show, err)
	}
	out, _, err = run(t, "relation", "rm", "items", "/item/bad", "/item/nope", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(out, "2 IDs given, 1 removed, 1 not in the relation") {
		t.Fatalf("rm:\n%s%v", out, err)
	}
	show, _, err = run(t, "relation", "show", "items", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(show, "1 of 1 records shown") || strings.Contains(show, "/item/bad") {
		t.Fatalf("show after rm:\n%s%v", show, err)
	}
}

func TestRelationAddRefusesAnIDThatMakesNoItemURL(t *testing.T) {
	cfgFile, data := relationSite(t)
	ids := filepath.Join(t.TempDir(), "ids")
	os.WriteFile(ids, []byte("/item/ok\nx y\n"), 0o644)
	_, _, err := run(t, "relation", "add", "items", "--config", cfgFile, "--data", data, "--ids", ids)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), `ID "x y"`) {
		t.Fatalf("add of an ID that makes no URL with item http://rel.test{id}: %v, want an error naming line 2 and the ID", err)
	}
	show, _, err := run(t, "relation", "show", "items", "--config", cfgFile, "--data", data)
	if err != nil || !strings.Contains(show, "0 of 0 records shown") {
		t.Fatalf("show after the refused add:\n%s%v", show, err)
	}
}

// TestRelationCreateKeywordsDefaultToTheFirstFieldTrimmed: without
// --keywords, the first --extract field's name is the keyword field, read
// as --extract reads it, spaces trimmed.
func TestRelationCreateKeywordsDefaultToTheFirstFieldTrimmed(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, _, err := run(t, "relation", "create", "spaced", "--data", data,
		"--search", "http://rel.test/search?q={q}&page={page}", "--item", "http://rel.test{id}", "--extract", " t=css:a")
	if err != nil || !strings.Contains(out, "keywords from t,") {
		t.Fatalf("create with --extract ' t=css:a' and no --keywords:\n%s%v", out, err)
	}
}

func TestRelationAddRefusesADataDirectoryWithNoRepository(t *testing.T) {
	dir := t.TempDir()
	ids := filepath.Join(dir, "ids")
	os.WriteFile(ids, []byte("a1\n"), 0o644)
	typo := filepath.Join(dir, "nonexistent")
	_, _, err := run(t, "relation", "add", "t2", "--data", typo, "--ids", ids)
	if err == nil || !strings.Contains(err.Error(), "--data "+typo+": no repository there") {
		t.Fatalf("add with a mistyped --data: %v, want no repository there", err)
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Errorf("add with a mistyped --data created %s (%v)", typo, err)
	}
}

// TestRelationIDsFromAFileWithoutEndAreRefused: --ids /dev/zero used to
// read until memory ran out; the file is read up to its bound and refused
// naming it, before the repository is opened.
func TestRelationIDsFromAFileWithoutEndAreRefused(t *testing.T) {
	for _, verb := range []string{"add", "rm"} {
		_, _, err := run(t, "relation", verb, "items", "--data", filepath.Join(t.TempDir(), "none"), "--ids", "/dev/zero")
		if err == nil || !strings.Contains(err.Error(), "--ids: /dev/zero: over 268435456 bytes (256 MiB)") {
			t.Errorf("relation %s --ids /dev/zero: %v, want it refused naming the bound", verb, err)
		}
	}
}

// TestRelationCreateRefusesAPageSizeOrMaxResultsOf0: --page-size 0 and
// --max-results 0 were taken for the flags left out, and the configured
// values created instead. They are refused naming the flag, the value and
// the limit, before a data directory is made; flags left out still take
// the configured values.
func TestRelationCreateRefusesAPageSizeOrMaxResultsOf0(t *testing.T) {
	t.Setenv("DELTAQ_RELATION_PAGE_SIZE", "5")
	t.Setenv("DELTAQ_RELATION_MAX_RESULTS", "20")
	create := func(data string, flags ...string) (string, error) {
		out, _, err := run(t, append([]string{"relation", "create", "r", "--data", data,
			"--search", "http://rel.test/search?q={q}&page={page}", "--extract", "t=css:a"}, flags...)...)
		return out, err
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--page-size", "0"}, "--page-size 0, --max-results 20: relation: page size = 0: must be >= 1"},
		{[]string{"--max-results", "0"}, "--page-size 5, --max-results 0: relation: max results = 0: must be >= the page size 5"},
		{[]string{"--page-size", "0", "--max-results", "0"}, "page size = 0: must be >= 1"},
		{[]string{"--page-size", "-1"}, "page size = -1: must be >= 1"},
	} {
		data := filepath.Join(t.TempDir(), "data")
		if _, err := create(data, c.flags...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("create with %q: %v, want %q", c.flags, err, c.want)
		}
		if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after the refused create with %q: %v, want nothing there", data, c.flags, err)
		}
	}
	out, err := create(filepath.Join(t.TempDir(), "data"))
	if err != nil || !strings.Contains(out, "p=5, K=20") {
		t.Fatalf("create without --page-size and --max-results:\n%s%v; want the configured p=5, K=20", out, err)
	}
	out, err = create(filepath.Join(t.TempDir(), "data"), "--page-size", "4", "--max-results", "8")
	if err != nil || !strings.Contains(out, "p=4, K=8") {
		t.Fatalf("create with --page-size 4 --max-results 8:\n%s%v", out, err)
	}
}

// TestRelationCreateFetchesTheOpenSearchDescriptionThroughTheCrawlersDialer:
// the description is fetched as the relation's searches are, so a
// loopback or private address is refused unless --allow-private, and
// --resolve points a host at a server of one's own.
func TestRelationCreateFetchesTheOpenSearchDescriptionThroughTheCrawlersDialer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<?xml version="1.0"?><OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">`+
			`<Url type="text/html" template="http://os.test/s?q={searchTerms}&amp;p={startPage}"/></OpenSearchDescription>`)
	}))
	defer srv.Close()
	create := func(data string, flags ...string) (string, error) {
		out, _, err := run(t, append([]string{"relation", "create", "r", "--data", data, "--item", "http://os.test{id}",
			"--extract", "t=css:a"}, flags...)...)
		return out, err
	}
	dir := t.TempDir()
	if _, err := create(filepath.Join(dir, "a"), "--opensearch", srv.URL+"/d.xml"); err == nil || !strings.Contains(err.Error(), "to read a description from loopback or private addresses (your own test server), run again with --allow-private") {
		t.Fatalf("--opensearch on loopback without --allow-private: %v, want the dialer's refusal", err)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	out, err := create(filepath.Join(dir, "b"), "--opensearch", "http://os.test/d.xml", "--allow-private", "--resolve", "os.test=127.0.0.1:"+port)
	if err != nil || !strings.Contains(out, "http://os.test/s?q={q}&p={page}") {
		t.Fatalf("--opensearch through --resolve and --allow-private:\n%s%v", out, err)
	}
}
