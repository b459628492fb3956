package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

func TestPageExplainPrintsAReadableReport(t *testing.T) {
	dir := t.TempDir()
	cfg, db := openData(t, dir)
	at := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: "http://a.test/p", State: repo.StateLive, LastOutcome: repo.OutcomeOK, HTTPStatus: 200,
		Fetches: 1, FirstSeen: at, LastFetch: at, Version: at, Signature: []byte("12345678")})
	b.LogFetch("http://a.test/p", &repo.FetchRecord{At: at, Took: 12500 * time.Microsecond, Reason: repo.ReasonSeed, Outcome: repo.OutcomeOK, HTTPStatus: 200, Difference: -1})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	// A crawl under deltaq; the command below runs with the default policy.
	fcfg := cfg.Frontier
	fcfg.Policy = "deltaq"
	policy, err := frontier.NewPolicy("deltaq", fcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := frontier.New(t.Context(), db, fcfg, nil, policy, frontier.Options{}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, _, err := run(t, "page", "explain", "http://a.test/p", "--data", dir)
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"state live (last fetch: ok, HTTP 200)", "recrawl (policy deltaq, recorded by the last crawl)",
		"2026-01-05 00:00:00 UTC seed ok 200 0 B 12.5 ms"} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, raw := range []string{"uniform", "12500000", "MTIzNDU2Nzg="} {
		if strings.Contains(out, raw) {
			t.Errorf("output carries %q:\n%s", raw, out)
		}
	}
	// A URL not held is named with the near ones held, as rm names them.
	if _, _, err := run(t, "page", "explain", "https://a.test/p/", "--data", dir); err == nil ||
		err.Error() != "https://a.test/p/: not in the repository; did you mean http://a.test/p?" {
		t.Errorf("page explain of a URL not held: %v; want the near URL named", err)
	}
	js, _, err := run(t, "page", "explain", "http://a.test/p", "--data", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		State   string `json:"state"`
		Recrawl struct {
			Policy string `json:"policy"`
		} `json:"recrawl"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil || rep.State != "live" || rep.Recrawl.Policy != "deltaq" {
		t.Fatalf("--json: %+v, %v\n%s", rep, err, js)
	}
}

// TestAPageNeverFetchedReportsNoLastOutcome: a queued page used to print
// "last fetch: ok" and export "last_outcome":"ok" with 0 fetches.
func TestAPageNeverFetchedReportsNoLastOutcome(t *testing.T) {
	dir := t.TempDir()
	_, db := openData(t, dir)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: "http://dead.test/", State: repo.StateQueued, FirstSeen: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, _, err := run(t, "page", "explain", "http://dead.test/", "--data", dir)
	if flat := strings.Join(strings.Fields(out), " "); err != nil || !strings.Contains(flat, "state queued (never fetched)") || strings.Contains(out, "ok") {
		t.Errorf("page explain: %v\n%s", err, out)
	}
	js, _, err := run(t, "page", "explain", "http://dead.test/", "--data", dir, "--json")
	if err != nil || strings.Contains(js, "last_outcome") || !strings.Contains(js, `"fetches": 0`) {
		t.Errorf("page explain --json: %v\n%s", err, js)
	}
	jsonl := filepath.Join(t.TempDir(), "pages.jsonl")
	if out, _, err := run(t, "export", "--data", dir, "--out", jsonl, "--format", "jsonl"); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	line, err := os.ReadFile(jsonl)
	if err != nil || strings.Contains(string(line), "last_outcome") || !strings.Contains(string(line), `"fetches":0`) {
		t.Errorf("exported record: %v\n%s", err, line)
	}
}
