// Shape of juice-shop frontend track-result.component.ts: the order id
// echoed back by the server is trusted as HTML (reflected XSS).
import { Component } from '@angular/core'
import { DomSanitizer } from '@angular/platform-browser'

@Component({ selector: 'app-track-result', templateUrl: './track-result.component.html' })
export class TrackResultComponent {
  public results: any = {}
  constructor (private readonly sanitizer: DomSanitizer) {}

  show (results: any) {
    this.results.orderNo = this.sanitizer.bypassSecurityTrustHtml(`<code>${results.data[0].orderId}</code>`)
  }
}
