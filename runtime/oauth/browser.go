package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// defaultRedirect is the redirect URI when Browse handles the redirect and
// none is configured.
const defaultRedirect = "http://127.0.0.1/callback"

// browseFunc runs the browser step for an authorization URL and returns the
// callback URL.
type browseFunc func(ctx context.Context, authURL string) (string, error)

// browser prepares the browser step for one authorization: the redirect
// URI, the function that runs the step and a stop function. With
// Config.Browse the step is the caller's; otherwise a loopback listener
// starts now (the redirect URI, with its port, is needed to register).
func (f *Flow) browser(state string) (string, browseFunc, func(), error) {
	if f.cfg.Browse != nil {
		redirect := f.cfg.RedirectURL
		if redirect == "" {
			redirect = defaultRedirect
		}
		browse := func(ctx context.Context, authURL string) (string, error) {
			cb, err := f.cfg.Browse(ctx, authURL)
			if err != nil {
				if k := errs.KindOf(err); k == errs.Cancelled || k == errs.Timeout {
					return "", err
				}
				return "", errs.Errorf(errs.Auth, "oauth", "the browser step failed: %w", err)
			}
			return cb, nil
		}
		return redirect, browse, func() {}, nil
	}
	l, err := listenLoopback(f.cfg.RedirectURL, state)
	if err != nil {
		return "", nil, nil, err
	}
	browse := func(ctx context.Context, authURL string) (string, error) {
		out := f.cfg.Out
		if out == nil {
			out = os.Stderr
		}
		fmt.Fprintf(out, "luagent: to authorize %s, open this URL in a browser:\n\n    %s\n\n", f.cfg.ServerURL, authURL)
		open := f.cfg.OpenURL
		if open == nil {
			open = openURL
		}
		_ = open(authURL) // the URL is printed: a missing opener is fine
		return l.wait(ctx, f.cfg.BrowseTimeout)
	}
	return l.redirect, browse, l.close, nil
}

// loopback is the built-in redirect listener (RFC 8252 §7.3).
type loopback struct {
	srv      *http.Server
	redirect string
	got      chan string
	once     sync.Once
}

// listenLoopback listens for the authorization response on redirectURL (a
// loopback http URL), or on 127.0.0.1:<random>/callback when it is empty.
// Only a request to the redirect path carrying state is the response;
// others are answered and ignored, so a stray or forged request cannot end
// the login.
func listenLoopback(redirectURL, state string) (*loopback, error) {
	addr, path := "127.0.0.1:0", "/callback"
	if redirectURL != "" {
		u, _ := url.Parse(redirectURL) // validated
		addr, path = u.Host, u.Path
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "80")
		}
		if path == "" {
			path = "/"
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errs.Errorf(errs.Auth, "oauth", "cannot listen for the authorization redirect on %s: %v; free the port or configure another redirect URL", addr, err)
	}
	l := &loopback{got: make(chan string, 1)}
	if redirectURL != "" {
		l.redirect = redirectURL
	} else {
		l.redirect = "http://" + ln.Addr().String() + path
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Query().Get("state") != state {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, page("This response does not belong to the pending luagent authorization; it was ignored."))
			return
		}
		cb := "http://" + r.Host + r.URL.RequestURI()
		l.once.Do(func() { l.got <- cb })
		io.WriteString(w, page("luagent received the authorization response. You can close this tab and return to the terminal."))
	})
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	return l, nil
}

func page(msg string) string {
	return "<!doctype html><meta charset=utf-8><title>luagent</title><p>" + msg + "</p>\n"
}

func (l *loopback) wait(ctx context.Context, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case cb := <-l.got:
		return cb, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", errs.New(errs.Timeout, "oauth", "no authorization response before the deadline; run the login again and finish it in the browser")
		}
		return "", errs.New(errs.Cancelled, "oauth", "the authorization was cancelled while waiting for the browser")
	case <-t.C:
		return "", errs.Errorf(errs.Timeout, "oauth", "no authorization response within %v; run the login again and finish it in the browser", timeout)
	}
}

func (l *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.srv.Shutdown(ctx)
}

// openURL opens u with the desktop opener, when there is one: open on
// macOS, rundll32 on Windows, xdg-open elsewhere when a display is set.
// The URL is an argument, never passed through a shell.
func openURL(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display")
		}
		p, err := exec.LookPath("xdg-open")
		if err != nil {
			return err
		}
		cmd = exec.Command(p, u)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
