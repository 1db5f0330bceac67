this.addPassword = '#add-password';
