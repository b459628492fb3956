// Package warc writes WARC 1.1 files (ISO 28500:2017): a warcinfo record,
// then one response record per stored page version, each holding the HTTP
// response as the crawler received it (status line, Content-Type, body).
// `deltaq export --format warc` uses it.
//
// NewGzipWriter compresses each record as a gzip member of its own (the
// .warc.gz convention); Read reads either form.
//
// State: none beyond the io.Writer; each record is written whole, with a
// Content-Length the reader checks, and a WARC-Block-Digest (sha1, base32).
// Record ids are name-based UUIDs of the URL and date, so exporting the same
// repository twice gives the same bytes.
//
//	w := warc.NewWriter(f)
//	w.Info(time.Now(), "deltaq export")
//	w.Response(url, fetchedAt, 200, "text/html", body)
package warc
