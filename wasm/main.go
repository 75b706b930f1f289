// Command wasm is boolpool's browser client, built with
// GOOS=js GOARCH=wasm into static/app.wasm.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/web"
)

func main() {
	web.Routes()
	app.RunWhenOnBrowser()
}
