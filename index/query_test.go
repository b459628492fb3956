package index

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var testLimits = Limits{MaxBytes: 1000, MaxTerms: 8}

func TestParseQuery(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Query
	}{
		{"words are terms", "federal budget", Query{Terms: []string{"federal", "budget"}}},
		{"quotes make a phrase", `"plain language" guide`, Query{Terms: []string{"guide"}, Phrases: []string{"plain language"}}},
		{"a minus excludes a word", "budget -draft", Query{Terms: []string{"budget"}, ExcludeTerms: []string{"draft"}}},
		{"a minus excludes a phrase", `budget -"first draft"`, Query{Terms: []string{"budget"}, ExcludePhrases: []string{"first draft"}}},
		{"site: repeats as alternatives", "budget site:a.gov SITE:B.gov", Query{Terms: []string{"budget"}, Sites: []string{"a.gov", "b.gov"}}},
		{"-site: excludes a host", "budget -site:a.gov", Query{Terms: []string{"budget"}, ExcludeSites: []string{"a.gov"}}},
		{"site: takes a host as the index stores it", "budget site:Bücher.DE. -site:WWW.A.gov.", Query{Terms: []string{"budget"}, Sites: []string{"xn--bcher-kva.de"}, ExcludeSites: []string{"www.a.gov"}}},
		{"spaces inside a phrase collapse", `"  plain   language "`, Query{Phrases: []string{"plain language"}}},
		{"a lone minus means nothing", "budget - report", Query{Terms: []string{"budget", "report"}}},
		{"an empty phrase is dropped", `budget ""`, Query{Terms: []string{"budget"}}},
		{"a hyphen inside a word stays", "e-mail", Query{Terms: []string{"e-mail"}}},
		{"typographic quotes make phrases", `“plain language” „erste Fassung“ «projet de loi» »zweite«`, Query{Phrases: []string{"plain language", "erste Fassung", "projet de loi", "zweite"}}},
		{"a typographic minus excludes", `budget −draft –“first draft” ‟final”`, Query{Terms: []string{"budget"}, Phrases: []string{"final"}, ExcludeTerms: []string{"draft"}, ExcludePhrases: []string{"first draft"}}},
		{"a dash between or inside words is no operator", "1990 – 2000 1990–2000 a−b", Query{Terms: []string{"1990", "2000", "1990–2000", "a−b"}}},
		{"a quote ends a word", `budget„plain language“`, Query{Terms: []string{"budget"}, Phrases: []string{"plain language"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseQuery(tc.in, testLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !equalQuery(got, tc.want) {
				t.Fatalf("ParseQuery(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			again, err := ParseQuery(got.String(), testLimits)
			if err != nil || !equalQuery(again, got) {
				t.Fatalf("String() %q does not parse back: %+v, %v", got.String(), again, err)
			}
		})
	}
}

func equalQuery(a, b Query) bool {
	return slices.Equal(a.Terms, b.Terms) && slices.Equal(a.Phrases, b.Phrases) &&
		slices.Equal(a.ExcludeTerms, b.ExcludeTerms) && slices.Equal(a.ExcludePhrases, b.ExcludePhrases) &&
		slices.Equal(a.Sites, b.Sites) && slices.Equal(a.ExcludeSites, b.ExcludeSites)
}

func TestParseQueryErrorsNameTheProblem(t *testing.T) {
	const site = "site:HOST, a host name such as site:example.org"
	cases := []struct {
		name        string
		in          string
		want, limit string
	}{
		{"an over-long query names the limit", strings.Repeat("a", 1200), "q: 1,200 bytes: longer than the 1,000-byte limit", "at most 1,000 bytes"},
		{"an empty query", "   ", "q: empty query", "at least one word"},
		{"only exclusions", "-budget -site:a.gov", "q: nothing to search for", `at least one word or "phrase"`},
		{"only a site filter", "site:a.gov", "q: nothing to search for", `at least one word or "phrase"`},
		{"an unclosed quote", `budget "plain language`, "q: unclosed quote at byte 8", `quotes in pairs, each "phrase" closed`},
		{"an unclosed typographic quote", `budget “plain language`, "q: unclosed quote at byte 8", `quotes in pairs, each "phrase" closed`},
		{"too many operators names the limit", `a -b -c "d e" -f -g -h -i site:x.org site:y.org`, "q: 9 phrases, exclusions and site: filters: more than the limit of 8", "at most 8 phrases, exclusions and site: filters"},
		{"a site: without a host", "budget site:", "q: site: with no host name", site},
		{"a site: with a path", "budget site:a.gov/x", "q: site:a.gov/x: not a host name", site},
		{"a site: with an empty label", "budget site:a..gov", "q: site:a..gov: not a host name", site},
		{"a site: with a wildcard", "budget site:*.gov", "q: site:*.gov: not a host name", site},
		{"a long bad site: is cut", "budget site:" + strings.Repeat("x/", 200), "q: site:" + strings.Repeat("x/", 30) + "…: not a host name", site},
		{"invalid UTF-8", "budg\xffet", "q: not valid UTF-8", "valid UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQuery(tc.in, testLimits)
			var qe *QueryError
			if !errors.As(err, &qe) || !strings.HasPrefix(err.Error(), tc.want) || qe.Limit != tc.limit {
				t.Fatalf("error = %#v, want a *QueryError starting %q with the limit %q", err, tc.want, tc.limit)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1200: "-1,200"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%d) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	f.Add(`federal "plain language" -draft site:a.gov`)
	f.Add(`-"x`)
	f.Add(`""""`)
	f.Add(`„a“ −b –“c d” « e »`)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s, Limits{MaxBytes: 4096, MaxTerms: 64})
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(q.Terms)+len(q.Phrases) == 0 {
			t.Fatal("a query without anything positive was accepted")
		}
		again, err := ParseQuery(q.String(), Limits{MaxBytes: 1 << 20, MaxTerms: 1 << 10})
		if err != nil || !equalQuery(again, q) {
			t.Fatalf("%q: String() = %q parses to %+v, %v", s, q.String(), again, err)
		}
	})
}

// TestQueryTermsRememberedForOneTextAndIndex: a parsed query's analysis
// is remembered for its copies, and answers only for the index and the
// text it was made of.
func TestQueryTermsRememberedForOneTextAndIndex(t *testing.T) {
	db := openRepo(t, tempDir(t, "repo"))
	cfg := testConfig(ScoringBM25)
	ix1 := openIndex(t, tempDir(t, "ix1"), cfg, db, Options{})
	ix2 := openIndex(t, tempDir(t, "ix2"), cfg, db, Options{})
	fresh := func(ix *Index, q Query) []string {
		var out []string
		for _, tok := range ix.Analyzer().Analyze(queryText(q)) {
			out = append(out, string(tok.Term))
		}
		return out
	}
	q, err := ParseQuery(`Running budgets "plain languages"`, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run", "budget", "plain", "languag"}; !slices.Equal(fresh(ix1, q), want) {
		t.Fatalf("analysis %q, want %q", fresh(ix1, q), want)
	}
	first := ix1.queryTerms(q, queryText(q))
	if !slices.Equal(first, fresh(ix1, q)) {
		t.Fatalf("queryTerms %q, analyzer %q", first, fresh(ix1, q))
	}
	if again := ix1.queryTerms(q, queryText(q)); len(again) == 0 || &again[0] != &first[0] {
		t.Fatal("the copy's second analysis was not the remembered one")
	}
	changed := q
	changed.Terms = []string{"walked"}
	if got := ix1.queryTerms(changed, queryText(changed)); !slices.Equal(got, []string{"walk", "plain", "languag"}) {
		t.Fatalf("after the terms changed: %q", got)
	}
	if got := ix2.queryTerms(q, queryText(q)); !slices.Equal(got, fresh(ix2, q)) || &got[0] == &first[0] {
		t.Fatalf("another index got %q (remembered %v)", got, &got[0] == &first[0])
	}
}
