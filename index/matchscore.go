package index

import "math"

// This file exposes the searcher's scoring (match.go) in closed form, for
// evaluations that score pages the index does not hold: eval sync's live
// web W, whose S(W[p], q) must be the score the searcher would give the
// live copy of p (thesis §4.2.1) under the live week's statistics. The
// formulas are match.go's, operation for operation, so that a page scored
// here and by Ranker.Match gets the same float64 (TestMatchScoreIsMatch).

// MatchIDF is the searcher's idf of a word held by df of n pages:
// ln(1 + (n − df + 0.5)/(df + 0.5)).
func MatchIDF(n, df uint64) float64 { return bm25IDF(n, df) }

// MatchTextScore is one query word's share of a page's searcher score:
// the word weighs queryWeight (its occurrences in the query, or its RM3
// weight) and has idf; the page's text field holds it tf times in length
// analysed tokens, against a mean of meanLen over the index.
func MatchTextScore(r RetrievalConfig, idf, queryWeight float64, tf uint64, length int, meanLen float64) float64 {
	w := 1 * idf * queryWeight
	return w * saturation(float64(tf), lengthNorm(r.B, uint32(length), meanLen), r.K1)
}

// MatchRequired is how many of a query's distinct words (after the
// max_query_terms cut) a page needs before the OR fallback: all of a
// short query's, min_should_match of a longer one's, at least one.
func MatchRequired(r RetrievalConfig, words int) int {
	required := words
	if words > r.ShortQueryTerms {
		required = int(math.Ceil(r.MinShouldMatch * float64(words)))
	}
	return max(required, 1)
}

// MatchFeedback reports whether the searcher expands a query of words
// distinct words by RM3 (match.go's expand).
func MatchFeedback(r RetrievalConfig, words int) bool {
	return r.FeedbackDocs > 0 && words > r.ShortQueryTerms
}

// MaxMatchTerms is the most words a searcher query has, feedback words
// included (a page's matched words are a 64-bit set).
const MaxMatchTerms = maxMatchTerms
