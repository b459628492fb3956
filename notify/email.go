package notify

import (
	"context"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"strings"
	"time"
)

// sendEmail delivers one notification over SMTP. The Message-ID is made
// from the notification ID, so a repeat after a crash is recognisably the
// same message.
func sendEmail(ctx context.Context, cfg SMTPConfig, d *delivery, now time.Time) error {
	if cfg.Addr == "" {
		return fmt.Errorf("notify: email %s: notify.smtp.addr is empty", d.Target.Addr)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("notify: smtp %s: %w", cfg.Addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return fmt.Errorf("notify: smtp %s: %w", cfg.Addr, err)
	}
	// A relay that stops answering must not hold a stopping server for
	// notify.smtp.timeout: cancelling ctx ends the session at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	host, _, _ := net.SplitHostPort(cfg.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("notify: smtp %s: %w", cfg.Addr, err)
	}
	defer c.Close()
	if err := c.Mail(cfg.From); err != nil {
		return fmt.Errorf("notify: smtp MAIL FROM %s: %w", cfg.From, err)
	}
	if err := c.Rcpt(d.Target.Addr); err != nil {
		return fmt.Errorf("notify: smtp RCPT TO %s: %w", d.Target.Addr, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("notify: smtp DATA: %w", err)
	}
	if _, err := w.Write(message(cfg.From, d, now)); err != nil {
		return fmt.Errorf("notify: smtp DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("notify: smtp DATA: %w", err)
	}
	return c.Quit()
}

// message renders an RFC 5322 message with a plain-text body: the URL,
// the summary, then the diff, or each of a digest's diffs under its
// heading.
func message(from string, d *delivery, now time.Time) []byte {
	var b strings.Builder
	// Header values come partly from pages and users: a line break in one
	// would start a header of its own.
	oneLine := strings.NewReplacer("\r", " ", "\n", " ")
	h := func(k, v string) { b.WriteString(fold(k+": "+oneLine.Replace(v)) + "\r\n") }
	h("From", from)
	h("To", d.Target.Addr)
	h("Subject", subject(d.N.Title))
	h("Date", now.UTC().Format(time.RFC1123Z))
	h("Message-ID", "<"+d.N.ID+"@deltaq>")
	h(HeaderIdempotency, d.N.ID)
	h("MIME-Version", "1.0")
	h("Content-Type", `text/plain; charset="utf-8"`)
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	body := d.N.URL + "\n" + d.N.Summary + "\n"
	switch {
	case len(d.N.Changes) > 0:
		for i, c := range d.N.Changes {
			body += "\n" + d.N.heading(i) + "\n"
			if c.Diff != nil {
				body += c.Diff.PlainText()
			}
		}
	case d.N.Diff != nil:
		body += "\n" + d.N.Diff.PlainText()
	}
	// A diff's run of words is one line however long it is, and a line of
	// a message may hold at most 998 bytes (RFC 5322 §2.1.1): relays
	// refuse longer ones. Quoted-printable wraps the lines and ends them in
	// CRLF; a reader unwraps them. A line that is a lone "." would end
	// DATA, but net/smtp's writer dot-stuffs.
	qp := quotedprintable.NewWriter(&b)
	qp.Write([]byte(body)) // a strings.Builder does not fail
	qp.Close()
	return []byte(b.String())
}

// subjectRunes bounds the Subject. A title carries the watched URL, which
// may run to thousands of bytes, where a mail reader shows a line of it;
// the body begins with the whole URL.
const subjectRunes = 200

// subject is the title, cut to subjectRunes with an ellipsis, as RFC 2047
// encoded-words where it needs them; each word is at most 75 bytes, so
// fold can bring every line of the header under the limit.
func subject(title string) string {
	if r := []rune(title); len(r) > subjectRunes {
		title = string(r[:subjectRunes-1]) + "…"
	}
	return mime.QEncoding.Encode("utf-8", title)
}

// fold breaks a header line at its spaces so that no line is longer than
// 78 bytes where its words allow (RFC 5322 §2.2.3): a reader unfolds it by
// taking out each CRLF before a space. It never leaves a line of spaces
// alone, which RFC 5322 forbids.
func fold(line string) string {
	const width = 78
	var b strings.Builder
	n := 0 // bytes on the current line
	for i, w := range strings.Split(line, " ") {
		if i > 0 {
			if w != "" && n+1+len(w) > width {
				b.WriteString("\r\n")
				n = 0
			}
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
