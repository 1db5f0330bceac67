// Shape of juice-shop frontend last-login-ip.component.ts: the
// True-Client-IP recorded at login is trusted as HTML (stored XSS).
import { Component } from '@angular/core'
import { DomSanitizer } from '@angular/platform-browser'

@Component({ selector: 'app-last-login-ip', templateUrl: './last-login-ip.component.html' })
export class LastLoginIpComponent {
  lastLoginIp: any = '?'
  constructor (private readonly sanitizer: DomSanitizer) {}

  parseAuthToken (payload: any) {
    this.lastLoginIp = this.sanitizer.bypassSecurityTrustHtml(`<small>${payload.data.lastLoginIp}</small>`)
  }
}
