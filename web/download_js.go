//go:build js && wasm

package web

import (
	"encoding/json"
	"errors"
	"syscall/js"
)

// download fetches url (same-origin credentials) and, when it answers 2xx,
// saves the body as a file named as the server's Content-Disposition says
// (else fallback); an error answer comes back as an *APIError with the
// server's problem detail, a network failure as an error. The body stays
// in the browser (a Blob), never copied into wasm memory. It blocks until
// fetch settles, so it must run off the UI goroutine (ctx.Async).
func download(url, fallback string) error {
	global := js.Global()
	opts := global.Get("Object").New()
	opts.Set("credentials", "same-origin")
	done := make(chan error, 1)
	status, name := 0, fallback
	var onAnswer, onBlob, onText, onFail js.Func
	onFail = js.FuncOf(func(this js.Value, args []js.Value) any {
		msg := "fetch failed"
		if len(args) > 0 && args[0].Type() == js.TypeObject {
			msg = args[0].Get("message").String()
		}
		done <- errors.New(msg)
		return nil
	})
	onText = js.FuncOf(func(this js.Value, args []js.Value) any {
		ae := &APIError{Status: status}
		_ = json.Unmarshal([]byte(args[0].String()), &ae.Problem)
		done <- ae
		return nil
	})
	onBlob = js.FuncOf(func(this js.Value, args []js.Value) any {
		u := global.Get("URL").Call("createObjectURL", args[0])
		doc := global.Get("document")
		a := doc.Call("createElement", "a")
		a.Set("href", u)
		a.Set("download", name)
		a.Get("style").Set("display", "none")
		doc.Get("body").Call("appendChild", a)
		a.Call("click")
		a.Call("remove")
		// Revoked later: revoking at once can cancel the save.
		var revoke js.Func
		revoke = js.FuncOf(func(js.Value, []js.Value) any {
			global.Get("URL").Call("revokeObjectURL", u)
			revoke.Release()
			return nil
		})
		global.Call("setTimeout", revoke, 60000)
		done <- nil
		return nil
	})
	onAnswer = js.FuncOf(func(this js.Value, args []js.Value) any {
		res := args[0]
		status = res.Get("status").Int()
		if cd := res.Get("headers").Call("get", "Content-Disposition"); cd.Type() == js.TypeString {
			if n := dispositionName(cd.String()); n != "" {
				name = n
			}
		}
		if res.Get("ok").Bool() {
			res.Call("blob").Call("then", onBlob, onFail)
		} else {
			res.Call("text").Call("then", onText, onFail)
		}
		return nil
	})
	global.Call("fetch", url, opts).Call("then", onAnswer, onFail)
	// fetch always settles (the browser ends a stalled request), so
	// this wait ends and the callbacks are released once.
	err := <-done
	onAnswer.Release()
	onBlob.Release()
	onText.Release()
	onFail.Release()
	return err
}
