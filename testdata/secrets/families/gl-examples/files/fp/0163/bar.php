$config = array(
			"secret_key" => sk_abcdefghijklmnopqrstuvwxyz123,
		);
