$config = array(
			"other_key" => "sk_abcdefghijklmnopqrstuvwxyz123",
		);
