package fanout

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/deltaq/deltaq/index"
)

// Request is one call to a shard as it travels between nodes (JSON): Op
// names the call, the other fields are its arguments.
type Request struct {
	Op    string            `json:"op"` // OpStats, OpFeedback, OpMatch or OpShown
	Query string            `json:"q"`  // the query as typed (index.ParseQuery)
	Words []string          `json:"words,omitempty"`
	Stats *index.MatchStats `json:"stats,omitempty"`
	K     int               `json:"k,omitempty"`
	Terms []index.QueryTerm `json:"terms,omitempty"`
	Limit int               `json:"limit,omitempty"`
	URLs  []string          `json:"urls,omitempty"` // pages whose titles and snippets are asked
	// TitlesOnly asks OpShown for the titles alone, no snippet cut (the
	// query is then not needed).
	TitlesOnly bool `json:"titles_only,omitempty"`
}

// The calls of a Request.
const (
	OpStats    = "stats"
	OpFeedback = "feedback"
	OpMatch    = "match"
	// OpShown asks a node for the titles and snippets of URLs it holds
	// (a result page's, after the merge).
	OpShown = "shown"
)

// Response is a shard's answer: one of the results, or Error (BadQuery
// set when the query itself was refused, an *index.QueryError).
type Response struct {
	Stats    *index.MatchStats  `json:"stats,omitempty"`
	Feedback *index.Feedback    `json:"feedback,omitempty"`
	Match    *index.ShardResult `json:"match,omitempty"`
	Shown    []index.Hit        `json:"shown,omitempty"`
	Error    string             `json:"error,omitempty"`
	BadQuery bool               `json:"bad_query,omitempty"`
	// QueryLimit is the refused query's QueryError.Limit.
	QueryLimit string `json:"query_limit,omitempty"`
}

// Measured is a shard whose calls are counted as the bytes their Request
// and Response would take between nodes: the coordination cost of a
// fanned-out query without a network in between.
type Measured struct {
	Shard Shard
	Calls atomic.Int64
	Bytes atomic.Int64
}

func (m *Measured) count(req Request, resp Response) {
	a, _ := json.Marshal(req)
	b, _ := json.Marshal(resp)
	m.Calls.Add(1)
	m.Bytes.Add(int64(len(a) + len(b)))
}

// Stats implements Shard.
func (m *Measured) Stats(ctx context.Context, q index.Query, words []string) (index.MatchStats, error) {
	st, err := m.Shard.Stats(ctx, q, words)
	m.count(Request{Op: OpStats, Query: q.String(), Words: words}, Response{Stats: &st})
	return st, err
}

// Feedback implements Shard.
func (m *Measured) Feedback(ctx context.Context, q index.Query, gs *index.MatchStats, k int) (index.Feedback, error) {
	fb, err := m.Shard.Feedback(ctx, q, gs, k)
	m.count(Request{Op: OpFeedback, Query: q.String(), Stats: gs, K: k}, Response{Feedback: &fb})
	return fb, err
}

// MatchShard implements Shard.
func (m *Measured) MatchShard(ctx context.Context, sq index.ShardQuery) (index.ShardResult, error) {
	res, err := m.Shard.MatchShard(ctx, sq)
	m.count(Request{Op: OpMatch, Query: sq.Query.String(), Stats: sq.Stats, Terms: sq.Terms, Limit: sq.Limit}, Response{Match: &res})
	return res, err
}
