package web

import (
	"context"
	"time"
)

// Searcher answers search requests: relevant pages from the index, ordered
// by the ranking (with randomized promotion), with ads.
type Searcher interface {
	Search(ctx context.Context, r Request) (Response, error)
}

// Request is one validated search request.
type Request struct {
	Query string
	Page  int // 1-based
	Size  int
	User  string // the user id cookie; "" for none
}

// Response is what the search API returns.
type Response struct {
	Query   string        `json:"query"`
	Total   uint64        `json:"total"`
	TookMS  float64       `json:"took_ms"`
	Page    int           `json:"page"`
	Size    int           `json:"size"`
	Results []Result      `json:"results"`
	Ads     []Ad          `json:"ads,omitempty"`
	Took    time.Duration `json:"-"`
}

// Result is one search result. Snippet is HTML: text escaped, matched
// terms in <mark>.
type Result struct {
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet"`
	Score     float64   `json:"score"`
	FetchedAt time.Time `json:"fetched_at"`
	Promoted  bool      `json:"promoted,omitempty"`
	ClickURL  string    `json:"click_url,omitempty"`
}

// Ad is one ad shown beside the results.
type Ad struct {
	Title    string `json:"title"`
	Text     string `json:"text"`
	URL      string `json:"url"`
	ClickURL string `json:"click_url"`
}
