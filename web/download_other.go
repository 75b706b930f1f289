//go:build !(js && wasm)

package web

import "errors"

// download saves a file only in the browser (download_js.go).
func download(url, fallback string) error {
	return errors.New("downloads need the browser")
}
