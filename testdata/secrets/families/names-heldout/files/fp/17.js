const oauthRedirectLive = 'https://app.example.com/cb?state=oAkiP57eDmFasmBdsyIZGuswdfPsS1zwJhdnlSIZ';
