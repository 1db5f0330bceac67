// Shape of juice-shop frontend administration.component.ts: user e-mail
// addresses are trusted as HTML (stored XSS).
import { Component } from '@angular/core'
import { DomSanitizer } from '@angular/platform-browser'

@Component({ selector: 'app-administration', templateUrl: './administration.component.html' })
export class AdministrationComponent {
  constructor (private readonly sanitizer: DomSanitizer) {}

  findAllUsers (users: any[]) {
    for (const user of users) {
      user.email = this.sanitizer.bypassSecurityTrustHtml(`<span class="${user.token ? 'confirmation' : 'error'}">${user.email}</span>`)
    }
  }
}
