package synthweb

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// rawWriteTimeout bounds a hijacked connection's writes (wall time).
const rawWriteTimeout = 10 * time.Second

// serveWrongLength writes a response whose Content-Length lies, on the raw
// connection so net/http cannot correct it: /wrong-length/short claims
// 10,000 bytes, sends 100 and closes; /wrong-length/long claims 16 and
// sends 4 KiB.
func serveWrongLength(rw http.ResponseWriter, r *http.Request) {
	var claim, sent int
	switch r.URL.Path {
	case "/wrong-length/short":
		claim, sent = wrongLengthClaim, wrongLengthSent
	case "/wrong-length/long":
		claim, sent = 16, 4<<10
	default:
		http.NotFound(rw, r)
		return
	}
	if r.Method == http.MethodHead {
		rw.Header().Set("Content-Type", htmlType)
		rw.Header().Set("Content-Length", strconv.Itoa(claim))
		return
	}
	body := "<!DOCTYPE html>\n<html><body><p>" + strings.Repeat("lying length ", sent/13+1)
	body = body[:sent]
	conn, brw, err := http.NewResponseController(rw).Hijack()
	if errors.Is(err, http.ErrNotSupported) {
		// HTTP/2 or a recorder: net/http enforces lengths there, so the
		// closest lie is a short body, which it turns into a reset.
		rw.Header().Set("Content-Type", htmlType)
		rw.Header().Set("Content-Length", strconv.Itoa(claim))
		_, _ = rw.Write([]byte(body[:min(sent, claim)])) // the client sees the lie either way
		return
	}
	if err != nil {
		return
	}
	defer conn.Close()
	if err := conn.SetWriteDeadline(time.Now().Add(rawWriteTimeout)); err != nil {
		return
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: " + htmlType + "\r\nContent-Length: " + strconv.Itoa(claim) +
		"\r\nConnection: close\r\n\r\n"
	if _, err := brw.WriteString(head + body); err != nil {
		return
	}
	_ = brw.Flush() // the connection is closed next either way
}
