package e2e

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// watchCutter is a reverse proxy between a controller and kube-apiserver
// that can end every watch passing through it and hold the watches that
// follow for a while, as a load balancer that drops its connections would;
// every other request passes through untouched, so the controller keeps
// writing while its caches stand still. With kube-apiserver's watch cache
// off for the resources the controllers watch and etcd compacted every
// few seconds, a watch resumed after the hold asks for a compacted
// revision and gets 410 Gone: the informer must list again.
type watchCutter struct {
	srv *httptest.Server

	mu        sync.Mutex
	open      map[*cutBody]struct{}
	holdUntil time.Time
	held      int
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}

// startWatchCutter starts the proxy in front of the cluster's API server;
// it stops when the test ends.
func (c *cluster) startWatchCutter() *watchCutter {
	c.t.Helper()
	target, err := url.Parse(c.server)
	if err != nil {
		c.t.Fatalf("watch cutter: %v", err)
	}
	w := &watchCutter{open: map[*cutBody]struct{}{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	rp.ModifyResponse = func(res *http.Response) error {
		if isWatch(res.Request) {
			b := &cutBody{ReadCloser: res.Body, cut: make(chan struct{}), w: w}
			w.mu.Lock()
			w.open[b] = struct{}{}
			w.mu.Unlock()
			res.Body = b
		}
		return nil
	}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if isWatch(r) && !w.hold(r.Context()) {
			return
		}
		rp.ServeHTTP(rw, r)
	}))
	w.srv.EnableHTTP2 = true
	w.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	w.srv.StartTLS()
	c.t.Cleanup(w.srv.Close)
	return w
}

// kubeconfig writes a kubeconfig of user that reaches the API server
// through the proxy and returns its path.
func (w *watchCutter) kubeconfig(c *cluster, user string) string {
	c.t.Helper()
	cfg, err := clientcmd.LoadFromFile(c.kubeconfigs[user])
	if err != nil {
		c.t.Fatalf("kubeconfig of %s: %v", user, err)
	}
	return c.write("kubeconfig-"+user+"-via-cutter", kubeconfig(w.srv.URL, user, cfg.AuthInfos[user].Token))
}

// hold blocks a new watch while a cut holds watches back; it returns false
// when the client went away first.
func (w *watchCutter) hold(ctx context.Context) bool {
	w.mu.Lock()
	until := w.holdUntil
	if time.Now().Before(until) {
		w.held++
	}
	w.mu.Unlock()
	d := time.Until(until)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// cut ends every watch open through the proxy (the client reads the end
// of the stream, as after a server-side timeout) and holds the watches
// started in the next d; it returns how many watches it ended.
func (w *watchCutter) cut(d time.Duration) int {
	w.mu.Lock()
	w.holdUntil = time.Now().Add(d)
	open := w.open
	w.open = map[*cutBody]struct{}{}
	w.mu.Unlock()
	for b := range open {
		b.end()
	}
	return len(open)
}

// heldWatches returns how many watches a cut has held back so far.
func (w *watchCutter) heldWatches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held
}

// cutBody is the body of a watch response that cut can end.
type cutBody struct {
	io.ReadCloser
	w    *watchCutter
	once sync.Once
	cut  chan struct{}
}

// end makes the body end: a Read under way returns, and every Read
// reports the end of the stream.
func (b *cutBody) end() {
	b.once.Do(func() {
		close(b.cut)
		_ = b.ReadCloser.Close()
	})
}

func (b *cutBody) Read(p []byte) (int, error) {
	select {
	case <-b.cut:
		return 0, io.EOF
	default:
	}
	n, err := b.ReadCloser.Read(p)
	select {
	case <-b.cut:
		return n, io.EOF
	default:
		return n, err
	}
}

func (b *cutBody) Close() error {
	b.w.mu.Lock()
	delete(b.w.open, b)
	b.w.mu.Unlock()
	b.end()
	return nil
}
