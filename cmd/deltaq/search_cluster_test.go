package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/web"
)

// searchConfig orders results by relevance alone, so that a node's answer
// is comparable with one index's (popularity is each node's own), and
// keeps the cluster on one NATS server. The heartbeat outlives a stall of
// a loaded machine: a node whose heartbeat lapsed is named missing, and
// every answer, even with all nodes serving, would be partial.
const searchConfig = `ranking:
  blend_weight: 0
  promotion:
    rule: none
cluster:
  replicas: 1
  lease_ttl: 20s
  search_timeout: 3s
`

// fillData writes pages into a fresh repository under data, as a crawl
// would have committed them; serve indexes them when it starts.
func fillData(t *testing.T, data string, pages []fanouteval.Page) {
	t.Helper()
	_, db := openData(t, data)
	defer db.Close()
	if err := fanouteval.PutPages(t.Context(), db, time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC), pages); err != nil {
		t.Fatal(err)
	}
}

// serveProc is a running `deltaq serve`.
type serveProc struct {
	*proc
	base  string
	admin chan string // the admin listener's URL, when the process prints it
}

// adminBase is the URL of the process's admin listener, which it prints
// beside the public one when server.admin.listen is set.
func (p *serveProc) adminBase(t *testing.T) string {
	t.Helper()
	select {
	case u := <-p.admin:
		p.admin <- u
		return u
	case <-time.After(10 * time.Second):
		t.Fatal("the server printed no admin listener within 10s")
		return ""
	}
}

// startServeProc starts cmd, a `deltaq serve`, and waits for the address
// it prints; the process is killed when the test ends.
func startServeProc(t *testing.T, cmd *exec.Cmd) *serveProc {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	admin := make(chan string, 1)
	bases := make(chan string, 1) // the public listener's URL, once
	p := startProc(t, cmd, func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			text := lines.Text()
			if rest, ok := strings.CutPrefix(text, "admin: "); ok {
				admin <- strings.TrimSuffix(strings.Fields(rest)[0], "/")
			}
			if rest, ok := strings.CutPrefix(text, "search: "); ok {
				select {
				case bases <- strings.TrimSuffix(rest, "/"):
				default: // printed before
				}
			}
		}
		io.Copy(io.Discard, stdout)
	})
	select {
	case base := <-bases:
		return &serveProc{proc: p, base: base, admin: admin}
	case <-p.exited:
		t.Fatalf("%s exited before listening: %v", cmd, p.err)
		return nil
	}
}

// serveNode starts `deltaq serve` with args, its log in dir/name.log.
func serveNode(t *testing.T, dir, name string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	cmd.Stderr = logFile(t, dir, name+".log")
	return startServeProc(t, cmd)
}

// search asks the process's search API for the first 10 results of q.
func (p *serveProc) search(t *testing.T, q string) web.Response {
	t.Helper()
	return p.searchWith(t, url.Values{"q": {q}, "size": {"10"}})
}

// searchWith asks the process's search API with the parameters params.
func (p *serveProc) searchWith(t *testing.T, params url.Values) web.Response {
	t.Helper()
	q := params.Get("q")
	resp, err := http.Get(p.base + "/api/v1/search?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("search %q: %s: %s", q, resp.Status, b)
	}
	var r web.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// ranked is a response's URLs and scores, in order.
func ranked(r web.Response) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, fmt.Sprintf("%s %v", res.URL, res.Score))
	}
	return out
}

// TestThreeServeNodesAnswerAsOneIndex runs three `deltaq serve --cluster`
// processes, each over a third of digitalgov-2023's pages (split by URL,
// so every node's statistics differ from the whole's), and one `deltaq
// serve` over all of them: a search on any node fans out and answers
// what the single index answers, scores included. A node stopped (SIGSTOP)
// gives partial results within cluster.search_timeout, named, not a hang;
// a bad request to a node's subject is refused with a clear error.
func TestThreeServeNodesAnswerAsOneIndex(t *testing.T) {
	dir := t.TempDir()
	a, err := archive.Open(datasets.Path(t, "archives", "digitalgov-2023"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := fanouteval.ExtractWeek([]*archive.Archive{a}, 0, extract.Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 200000})
	if err != nil {
		t.Fatal(err)
	}
	pages = pages[:1200]
	cfgFile := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfgFile, []byte(searchConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := natstest.Start(t, 1)
	split := make([][]fanouteval.Page, 3)
	for _, p := range pages {
		s := fanouteval.ByURL.NodeOf(p, 3, 0)
		split[s] = append(split[s], p)
	}
	fillData(t, filepath.Join(dir, "single"), pages)
	single := serveNode(t, dir, "single", "--config", cfgFile, "--data", filepath.Join(dir, "single"))
	var nodes []*serveProc
	for i, part := range split {
		data := filepath.Join(dir, fmt.Sprint("n", i))
		fillData(t, data, part)
		nodes = append(nodes, serveNode(t, dir, fmt.Sprint("n", i), "--config", cfgFile, "--data", data,
			"--cluster", ns.URL(), "--node", fmt.Sprint("n", i)))
	}
	// Every node lists the others within a heartbeat (lease_ttl/3).
	probe := "digital government"
	want := single.search(t, probe)
	for i, n := range nodes {
		waitUntil(t, fmt.Sprintf("node n%d seeing all three nodes", i), func() bool {
			r := n.search(t, probe)
			return len(r.Partial) == 0 && r.Total == want.Total
		})
	}

	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	asked, long := 0, 0
	for _, q := range qs[:60] {
		w := single.search(t, q.Text)
		got := nodes[asked%3].search(t, q.Text)
		asked++
		if len(strings.Fields(q.Text)) > 4 {
			long++
		}
		if len(got.Partial) != 0 {
			t.Fatalf("%q: partial %v", q.Text, got.Partial)
		}
		if got.Total != w.Total || !slices.Equal(ranked(got), ranked(w)) {
			t.Errorf("%q: total %d, one index %d\n nodes     %v\n one index %v", q.Text, got.Total, w.Total, ranked(got), ranked(w))
		}
		for _, r := range got.Results {
			if r.Title == "" && r.Snippet == "" {
				t.Errorf("%q: %s shown without title or snippet", q.Text, r.URL)
			}
		}
	}
	t.Logf("%d queries (%d of more than 4 words, expanded by RM3) answered as one index", asked, long)

	// Asked for URLs and titles alone, the nodes answer the same pages
	// with the same titles, and nothing else.
	for i, q := range qs[:10] {
		w := single.search(t, q.Text)
		got := nodes[i%3].searchWith(t, url.Values{"q": {q.Text}, "size": {"10"}, "fields": {"url,title"}})
		if len(got.Results) != len(w.Results) {
			t.Fatalf("%q with fields=url,title: %d results, one index %d", q.Text, len(got.Results), len(w.Results))
		}
		for k, r := range got.Results {
			if r.URL != w.Results[k].URL || r.Title != w.Results[k].Title || r.Snippet != "" || r.Score != 0 {
				t.Errorf("%q with fields=url,title, result %d: %+v; want %s titled %q alone", q.Text, k, r, w.Results[k].URL, w.Results[k].Title)
			}
		}
	}

	// A bad request to a node's subject: refused, named.
	nc, err := nats.Connect(ns.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, c := range []struct{ req, want string }{
		{`not json`, "not a search request"},
		{`{"op":"drop","q":"web"}`, `op = "drop"`},
		{`{"op":"match","q":"web","limit":1000000}`, "limit = 1000000"},
		{`{"op":"match","q":"\"\""}`, "nothing to search for"},
		{`{"op":"match","q":"web","titles_only":true}`, "titles_only = true: only for op shown"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		msg, err := nc.RequestWithContext(ctx, cluster.SearchSubject("n1"), []byte(c.req))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.req, err)
		}
		var resp fanout.Response
		if err := json.Unmarshal(msg.Data, &resp); err != nil {
			t.Fatalf("%s: answer %s: %v", c.req, msg.Data, err)
		}
		if !strings.Contains(resp.Error, c.want) {
			t.Errorf("%s: answer %s, want an error mentioning %q", c.req, msg.Data, c.want)
		}
	}

	// A node asked for titles alone cuts no snippet.
	held := split[1][0]
	titles, err := json.Marshal(fanout.Request{Op: fanout.OpShown, URLs: []string{held.URL}, TitlesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	msg, err := nc.RequestWithContext(ctx, cluster.SearchSubject("n1"), titles)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	var titled fanout.Response
	if err := json.Unmarshal(msg.Data, &titled); err != nil || titled.Error != "" || len(titled.Shown) != 1 {
		t.Fatalf("titles of %s from n1: %s (%v)", held.URL, msg.Data, err)
	}
	if h := titled.Shown[0]; h.URL != held.URL || h.Title == "" || h.Snippet != "" || h.SnippetText != "" {
		t.Errorf("titles of %s from n1: %+v; want its title and no snippet", held.URL, h)
	}

	// A node that stops answering: partial results, named, not a hang.
	if err := nodes[2].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	got := nodes[0].search(t, probe)
	if err := nodes[2].cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Partial, []string{"n2"}) || got.TotalExact {
		t.Fatalf("with n2 stopped: partial %v, total exact %v; want [n2], false", got.Partial, got.TotalExact)
	}
	if got.Total >= want.Total || len(got.Results) == 0 {
		t.Errorf("with n2 stopped: total %d of %d, %d results; want fewer, but some", got.Total, want.Total, len(got.Results))
	}

	// A node serving is not forgotten.
	if _, _, err := run(t, "cluster", "forget", "--cluster", ns.URL(), "n1"); err == nil || !strings.Contains(err.Error(), `node "n1" is serving search`) {
		t.Errorf("cluster forget n1 while it serves: %v; want a refusal that says it is serving", err)
	}
}

func TestServeClusterFlagsGiveClearErrors(t *testing.T) {
	// serve reads a repository: each case gets an empty one.
	data := func() string {
		dir := t.TempDir()
		_, db := openData(t, dir)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--data", data(), "--cluster", "nats://127.0.0.1:1"}, `cluster.node = ""`},
		{[]string{"serve", "--data", data(), "--cluster", "nats://127.0.0.1:1", "--node", "a b"}, `cluster.node = "a b"`},
		{[]string{"serve", "--data", data(), "--cluster", "nats://127.0.0.1:1", "--node", "a"}, "connect nats://127.0.0.1:1"},
	} {
		t.Run(strings.Join(c.args[3:], " "), func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
	t.Setenv("DELTAQ_CLUSTER_SEARCH_TIMEOUT", "2m")
	if _, _, err := run(t, "serve", "--data", t.TempDir()); err == nil || !strings.Contains(err.Error(), "cluster.search_timeout = 2m0s") {
		t.Fatalf("err = %v, want cluster.search_timeout = 2m0s refused", err)
	}
}
