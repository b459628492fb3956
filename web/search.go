package web

import (
	"context"
	"time"
)

// Searcher answers search requests: relevant pages from the index, ordered
// by the ranking (with randomized promotion), with ads.
type Searcher interface {
	Search(ctx context.Context, r Request) (Response, error)
	// Check returns the error Search would give r's query for its
	// syntax, without searching: a HEAD request answers as its GET
	// would, and runs no search.
	Check(r Request) error
}

// Request is one validated search request.
type Request struct {
	Query string
	Page  int // 1-based
	Size  int
	User  string // the user id cookie; "" for none
	// Fields are the result fields to answer with (the API's fields
	// parameter); the zero value is all of them.
	Fields ResultFields
}

// Response is what the search API returns.
type Response struct {
	Query string `json:"query"`
	// Total is how many pages match; TotalExact says whether it was
	// counted (true) or estimated. Pageable is how many of them the pages
	// of results reach (ranking.candidates orders at most that many); 0
	// means all of Total.
	Total      uint64   `json:"total"`
	TotalExact bool     `json:"total_exact"`
	Pageable   int      `json:"pageable"`
	TookMS     float64  `json:"took_ms"`
	Page       int      `json:"page"`
	Size       int      `json:"size"`
	Results    []Result `json:"results"`
	Ads        []Ad     `json:"ads,omitempty"`
	// Partial names the cluster's nodes that did not answer in time
	// (`deltaq serve --cluster`): their pages are missing from Results
	// and Total.
	Partial []string      `json:"partial,omitempty"`
	Took    time.Duration `json:"-"`
}

// Truncated reports whether the pages reach fewer results than match.
func (r Response) Truncated() bool { return r.Pageable > 0 && uint64(r.Pageable) < r.Total }

// Result is one search result. Snippet is HTML: text escaped, matched
// terms in <mark>. SnippetText is the same text without markup, with the
// matched spans in Highlights and the distinct matched words in
// MatchedTerms, for clients that render their own highlighting. A Searcher
// may fill those three (Engine does, from the index's cut); when
// Highlights is nil the server derives them from Snippet.
type Result struct {
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Snippet      string    `json:"snippet"`
	SnippetText  string    `json:"snippet_text"`
	Highlights   []Span    `json:"highlights"`
	MatchedTerms []string  `json:"matched_terms"`
	Score        float64   `json:"score"`
	FetchedAt    time.Time `json:"fetched_at"`
	Promoted     bool      `json:"promoted,omitempty"`
	ClickURL     string    `json:"click_url,omitempty"`
}

// Ad is one ad shown beside the results.
type Ad struct {
	Title    string `json:"title"`
	Text     string `json:"text"`
	URL      string `json:"url"`
	ClickURL string `json:"click_url"`
}
