// Package notifytest runs real receivers for notifications on loopback: an
// SMTP server (github.com/emersion/go-smtp, in process) and a webhook
// receiver that checks signatures and records idempotency keys.
package notifytest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/deltaq/deltaq/notify"
)

// Mail is one message the SMTP server accepted.
type Mail struct {
	From, To string
	Header   mail.Header
	Body     string // decoded as a mail reader shows it (quoted-printable undone)
	Raw      []byte // as it came, header and body, lines ending in CRLF
}

// Mailbox is a running SMTP server and the messages it accepted.
type Mailbox struct {
	Addr string
	mu   sync.Mutex
	msgs []Mail
}

// Messages returns a copy of the accepted messages.
func (m *Mailbox) Messages() []Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Mail(nil), m.msgs...)
}

// SMTP starts an SMTP server on loopback, closed when the test ends.
func SMTP(t testing.TB) *Mailbox {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mb := &Mailbox{Addr: l.Addr().String()}
	s := smtp.NewServer(backend{mb})
	s.Domain = "localhost"
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return mb
}

type backend struct{ mb *Mailbox }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{mb: b.mb}, nil }

type session struct {
	mb       *Mailbox
	from, to string
}

func (s *session) Reset()        { s.from, s.to = "", "" }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = to
	return nil
}
func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	r = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.mb.mu.Lock()
	s.mb.msgs = append(s.mb.msgs, Mail{From: s.from, To: s.to, Header: m.Header, Body: string(body), Raw: raw})
	s.mb.mu.Unlock()
	return nil
}

// Hook is one webhook request the receiver accepted.
type Hook struct {
	Key          string
	Notification notify.Notification
	Body         []byte
}

// Receiver is a webhook endpoint on loopback.
type Receiver struct {
	URL string
	mu  struct {
		sync.Mutex
		hooks  []Hook
		fail   int // answer 503 to this many more requests
		secret []byte
		bad    int // requests with a bad signature
		holdAt int // hold the answer to this request (1-based); 0: none
		held   chan struct{}
	}
}

// HoldAt makes the receiver record the n-th accepted request and then not
// answer it until the client goes away; the returned channel is closed
// when that request has been recorded. A crash test kills the sender
// there: the receiver has the notification, the sender never learned it.
func (r *Receiver) HoldAt(n int) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mu.holdAt, r.mu.held = n, make(chan struct{})
	return r.mu.held
}

// Webhooks starts a receiver, closed when the test ends.
func Webhooks(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hook"
	return r
}

// FailNext makes the next n requests fail with 503.
func (r *Receiver) FailNext(n int) {
	r.mu.Lock()
	r.mu.fail = n
	r.mu.Unlock()
}

// SetSecret makes the receiver verify signatures with secret.
func (r *Receiver) SetSecret(secret []byte) {
	r.mu.Lock()
	r.mu.secret = secret
	r.mu.Unlock()
}

// Hooks returns a copy of the accepted requests, in arrival order.
func (r *Receiver) Hooks() []Hook {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Hook(nil), r.mu.hooks...)
}

// BadSignatures counts requests refused for their signature.
func (r *Receiver) BadSignatures() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mu.bad
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 4<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	hold := r.record(w, req, body)
	r.mu.Unlock()
	if hold != nil {
		close(hold)
		<-req.Context().Done()
	}
}

// record handles a request with the lock held and returns the channel to
// close if this request is the one to hold.
func (r *Receiver) record(w http.ResponseWriter, req *http.Request, body []byte) chan struct{} {
	if r.mu.fail > 0 {
		r.mu.fail--
		http.Error(w, "try later", http.StatusServiceUnavailable)
		return nil
	}
	if r.mu.secret != nil && !notify.Verify(r.mu.secret, req.Header.Get(notify.HeaderTimestamp), body, req.Header.Get(notify.HeaderSignature)) {
		r.mu.bad++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return nil
	}
	var n notify.Notification
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil
	}
	r.mu.hooks = append(r.mu.hooks, Hook{Key: req.Header.Get(notify.HeaderIdempotency), Notification: n, Body: body})
	if len(r.mu.hooks) == r.mu.holdAt {
		return r.mu.held
	}
	return nil
}

// Entry is one entry of an Atom feed of the outbox, as a feed reader
// reads it.
type Entry struct {
	ID   string `xml:"id"`
	Link struct {
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Content string `xml:"content"`
}

// Entries reads the entries of the Atom feed raw, failing tb when it is
// not XML.
func Entries(tb testing.TB, raw []byte) []Entry {
	tb.Helper()
	var f struct {
		Entries []Entry `xml:"entry"`
	}
	if err := xml.Unmarshal(raw, &f); err != nil {
		tb.Fatalf("feed is not XML: %v\n%s", err, raw)
	}
	return f.Entries
}
