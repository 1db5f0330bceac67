public class OAuthClient {
    private String accessTokenEndpoint = "https://connect.squareup.com/oauth2/token";
    private String baseURL = "https://connect.squareup.com";
    private String clientId = "sq0idp-Ux0S-9iMfaCeszTkDpSjDw";
    private String clientSecret = "sq0csp-lBGGHNQmcaCesLfa3x6W7jJj8SQ-Fx5Y0yQiCrUWM40";
}
