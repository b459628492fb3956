package warc

import (
	"bufio"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Record is one record read back: its header fields and its block.
type Record struct {
	Header map[string]string
	Block  []byte
}

// maxBlock bounds the block Read accepts, as Writer never writes a body
// over crawler.limits.max_body_bytes plus headers.
const maxBlock = 1 << 30

// Read parses a WARC file strictly (ISO 28500 §4–6): the version line,
// header fields up to an empty line, the mandatory fields, exactly
// Content-Length bytes of block matching WARC-Block-Digest if present, then
// CRLF CRLF. It checks that a file is well formed. A gzip file (one
// member per record, or one for the whole) is read decompressed.
func Read(r io.Reader) ([]Record, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br) // multistream: every member in turn
		if err != nil {
			return nil, fmt.Errorf("warc: gzip: %w", err)
		}
		br = bufio.NewReader(zr)
	}
	var out []Record
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return out, nil
		}
		n := len(out)
		if line != "WARC/1.1\r\n" {
			return out, fmt.Errorf("warc: record %d: version line %q, want WARC/1.1", n, line)
		}
		h := map[string]string{}
		for {
			l, err := br.ReadString('\n')
			if err != nil || !strings.HasSuffix(l, "\r\n") {
				return out, fmt.Errorf("warc: record %d: header line %q not ended by CRLF", n, l)
			}
			if l == "\r\n" {
				break
			}
			name, value, ok := strings.Cut(strings.TrimSuffix(l, "\r\n"), ": ")
			if !ok {
				return out, fmt.Errorf("warc: record %d: header line %q has no ': '", n, l)
			}
			h[name] = value
		}
		for _, f := range []string{"WARC-Type", "WARC-Record-ID", "WARC-Date", "Content-Length"} {
			if h[f] == "" {
				return out, fmt.Errorf("warc: record %d lacks the mandatory field %s", n, f)
			}
		}
		if _, err := time.Parse(time.RFC3339Nano, h["WARC-Date"]); err != nil {
			return out, fmt.Errorf("warc: record %d: WARC-Date %q: %w", n, h["WARC-Date"], err)
		}
		size, err := strconv.Atoi(h["Content-Length"])
		if err != nil || size < 0 || size > maxBlock {
			return out, fmt.Errorf("warc: record %d: Content-Length %q: must be a length up to %d", n, h["Content-Length"], maxBlock)
		}
		block := make([]byte, size)
		if _, err := io.ReadFull(br, block); err != nil {
			return out, fmt.Errorf("warc: record %d: block shorter than Content-Length %d: %w", n, size, err)
		}
		end := make([]byte, 4)
		if _, err := io.ReadFull(br, end); err != nil || string(end) != "\r\n\r\n" {
			return out, errors.New("warc: record " + strconv.Itoa(n) + ": block not followed by CRLF CRLF")
		}
		if d := h["WARC-Block-Digest"]; d != "" {
			sum := sha1.Sum(block)
			if d != "sha1:"+base32.StdEncoding.EncodeToString(sum[:]) {
				return out, fmt.Errorf("warc: record %d: WARC-Block-Digest %s does not match the block", n, d)
			}
		}
		out = append(out, Record{Header: h, Block: block})
	}
}
