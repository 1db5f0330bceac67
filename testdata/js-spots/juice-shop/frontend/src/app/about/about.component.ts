// Shape of juice-shop frontend about.component.ts: customer feedback
// comments are trusted as HTML (stored XSS).
import { Component } from '@angular/core'
import { DomSanitizer } from '@angular/platform-browser'

@Component({ selector: 'app-about', templateUrl: './about.component.html' })
export class AboutComponent {
  constructor (private readonly sanitizer: DomSanitizer) {}

  populateSlideshow (feedbacks: any[]) {
    for (let i = 0; i < feedbacks.length; i++) {
      feedbacks[i].comment = `<span>${feedbacks[i].comment}</span>`
      feedbacks[i].comment = this.sanitizer.bypassSecurityTrustHtml(feedbacks[i].comment)
    }
  }
}
