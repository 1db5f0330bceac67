const mapsKey = "AIzajouVpbxDKpZ-vUd8LA6bIGpAEuZYKE7iYmj";
