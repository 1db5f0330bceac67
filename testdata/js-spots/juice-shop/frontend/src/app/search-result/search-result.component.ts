// Shape of juice-shop frontend search-result.component.ts: the search term
// from the URL is trusted as HTML (DOM XSS).
import { Component } from '@angular/core'
import { DomSanitizer } from '@angular/platform-browser'
import { ActivatedRoute } from '@angular/router'

@Component({ selector: 'app-search-result', templateUrl: './search-result.component.html' })
export class SearchResultComponent {
  public searchValue?: any
  constructor (private readonly sanitizer: DomSanitizer, private readonly route: ActivatedRoute) {}

  filterTable () {
    const queryParam: string = this.route.snapshot.queryParams.q
    this.searchValue = this.sanitizer.bypassSecurityTrustHtml(queryParam)
  }
}
