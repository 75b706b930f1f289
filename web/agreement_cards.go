package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// AgreementCards shows the inter-annotator agreement coefficients as a
// row of cards. Undefined coefficients (too few items, no variation) show
// a dash.
type AgreementCards struct {
	app.Compo
	Iagreement api.AgreementView
}

// NewAgreementCards returns empty cards.
func NewAgreementCards() *AgreementCards { return &AgreementCards{} }

// Agreement sets the coefficients.
func (c *AgreementCards) Agreement(v api.AgreementView) *AgreementCards { c.Iagreement = v; return c }

// Render draws the cards.
func (c *AgreementCards) Render() app.UI {
	a := c.Iagreement
	card := func(id, name string, v *float64, note string) app.UI {
		return app.Div().Class("card").ID(id).DataSet("value", coefData(v)).Aria("label", name).Body(
			app.Div().Class("card-name").Text(name),
			app.Div().Class("card-value").Text(coefText(v)),
			app.Div().Class("card-note").Text(note),
		)
	}
	unanimous := "—"
	if a.Unanimous != nil {
		unanimous = fmt.Sprintf("%.1f%%", *a.Unanimous*100)
	}
	return app.Section().ID("agreement").Aria("label", "Agreement").Body(
		app.H2().Text("Agreement"),
		app.Div().Class("cards").Body(
			card("fleiss-kappa", "Fleiss' κ", a.FleissKappa, fmt.Sprintf("%d fully rated items", a.FleissItems)),
			card("alpha-nominal", "Krippendorff's α (nominal)", a.AlphaNominal, fmt.Sprintf("%d paired items", a.PairedItems)),
			card("alpha-ordinal", "Krippendorff's α (ordinal)", a.AlphaOrdinal, fmt.Sprintf("%d paired items", a.PairedItems)),
			card("gwet-ac1", "Gwet's AC1", a.GwetAC1, "robust to skewed labels"),
			card("mean-cohen", "Mean pairwise Cohen's κ", a.MeanCohenKappa, ""),
			app.Div().Class("card").ID("unanimous").DataSet("value", coefData(a.Unanimous)).Aria("label", "Unanimous after binarising").Body(
				app.Div().Class("card-name").Text("Unanimous (binarised)"),
				app.Div().Class("card-value").Text(unanimous),
				app.Div().Class("card-note").Textf("of %d items", a.UnanimousItems),
			),
		),
	)
}

// coefText formats a coefficient for people (a dash when undefined).
func coefText(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

// coefData formats a coefficient for data attributes (empty when undefined).
func coefData(v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("%.6f", *v)
}
