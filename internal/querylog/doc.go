// Package querylog reads query logs into a workload: each distinct query
// string with how often it was issued (the Q and f_q of thesis §4.2.1,
// eq. 4.1).
//
// Three line formats are read, all tab-separated with one record per line
// (shared/data/README.md §4):
//
//	FormatCounts  query<TAB>count        a count per query (tldr-brew-installs.tsv)
//	FormatRaw     user<TAB>time<TAB>query one line per issued query, time YYMMDDhhmmss
//	                                     (excite-1997-small.tsv); read as Latin-1;
//	                                     lines with an empty query are skipped
//	FormatTopics  qid<TAB>query          one line per topic, count 1 (trec-mq.tsv)
//
// FormatAuto looks at the first lines' column shape: three columns is the
// raw format; two columns are counts when every second column is a number
// and topics when every first column is an integer id (and not both).
//
// In every format a query that appears on several lines has its counts
// summed; queries are returned in order of first appearance. Query text is
// kept exactly as written (no case folding or whitespace changes): splitting
// into terms is the index's job, with the index's own analyzer (§4.6.1).
// A line that does not fit its format is an error naming the file and the
// line number; nothing panics on bad input.
//
// Memory: one entry per distinct query; lines are streamed.
//
//	qs, err := querylog.Load("querylogs/trec-mq.tsv", querylog.FormatAuto)
//	for _, q := range qs { fmt.Println(q.Text, q.Count) }
package querylog
