//go:build js && wasm

package web

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"
)

// send makes one request with the browser's fetch (same-origin
// credentials) and returns the answer's status and body. The wasm client
// calls fetch itself rather than through net/http's Client: that one links
// the Transport with its dialers and the TLS and X.509 stacks, about a third
// of app.wasm, although in the browser it only ever calls fetch too.
// It blocks until the answer, ctx's end or requestTimeout, so it must run
// off the UI goroutine (ctx.Async), as every Client call does.
func send(ctx context.Context, method, url string, header [][2]string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	global := js.Global()
	abort := global.Get("AbortController").New()
	headers := global.Get("Headers").New()
	for _, h := range header {
		headers.Call("set", h[0], h[1])
	}
	opts := global.Get("Object").New()
	opts.Set("method", method)
	opts.Set("headers", headers)
	opts.Set("credentials", "same-origin")
	opts.Set("signal", abort.Get("signal"))
	if body != nil {
		b := global.Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(b, body)
		opts.Set("body", b)
	}

	type answer struct {
		status int
		data   []byte
		err    error
	}
	done := make(chan answer, 1)
	status := 0
	// The callbacks run on the JavaScript event loop; exactly one of
	// onBody and onFail ends the request.
	var onAnswer, onBody, onFail js.Func
	onFail = js.FuncOf(func(this js.Value, args []js.Value) any {
		msg := "fetch failed"
		if len(args) > 0 && args[0].Type() == js.TypeObject {
			msg = args[0].Get("message").String()
		}
		done <- answer{err: errors.New(msg)}
		return nil
	})
	onBody = js.FuncOf(func(this js.Value, args []js.Value) any {
		buf := global.Get("Uint8Array").New(args[0])
		n := buf.Get("byteLength").Int()
		if n > maxAnswerBytes {
			done <- answer{err: fmt.Errorf("answer of %d bytes is over the %d byte limit", n, maxAnswerBytes)}
			return nil
		}
		data := make([]byte, n)
		js.CopyBytesToGo(data, buf)
		done <- answer{status: status, data: data}
		return nil
	})
	onAnswer = js.FuncOf(func(this js.Value, args []js.Value) any {
		res := args[0]
		status = res.Get("status").Int()
		res.Call("arrayBuffer").Call("then", onBody, onFail)
		return nil
	})
	defer func() { onAnswer.Release(); onBody.Release(); onFail.Release() }()
	global.Call("fetch", url, opts).Call("then", onAnswer, onFail)

	select {
	case a := <-done:
		return a.status, a.data, a.err
	case <-ctx.Done():
		// Aborting rejects the pending promise, which calls onFail; wait
		// for it so no callback runs after its release.
		abort.Call("abort")
		<-done
		return 0, nil, ctx.Err()
	}
}
