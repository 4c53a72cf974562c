package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// signingKey is a private key for signing JWTs (private_key_jwt client
// assertions, RFC 7523 §2.2) and the JWS algorithm it signs with.
type signingKey struct {
	alg string
	key crypto.Signer
}

// jwsHash is the hash each supported JWS algorithm signs (RFC 7518 §3.1;
// EdDSA, RFC 8037, signs the message itself).
var jwsHash = map[string]crypto.Hash{
	"ES256": crypto.SHA256, "ES384": crypto.SHA384, "ES512": crypto.SHA512,
	"RS256": crypto.SHA256, "RS384": crypto.SHA384, "RS512": crypto.SHA512,
	"PS256": crypto.SHA256, "PS384": crypto.SHA384, "PS512": crypto.SHA512,
	"EdDSA": 0,
}

// parseSigningKey reads a PEM private key (PKCS #8 "PRIVATE KEY", SEC 1
// "EC PRIVATE KEY" or PKCS #1 "RSA PRIVATE KEY") and checks it fits alg;
// an empty alg is the key's natural one (ES256 for a P-256 key, ES384,
// ES512, RS256 for RSA, EdDSA for Ed25519). Errors never quote the key.
func parseSigningKey(pemText, alg string) (*signingKey, error) {
	bad := func(why string) error {
		return errs.New(errs.Invalid, "oauth", "oauth.private_key_pem "+why)
	}
	rest := []byte(strings.TrimSpace(pemText))
	var block *pem.Block
	var seen []string
	for {
		block, rest = pem.Decode(rest)
		if block == nil {
			if len(seen) > 0 {
				return nil, bad("holds no private key (only " + strings.Join(seen, ", ") + "): give the client's private key")
			}
			return nil, bad("is not a PEM private key: give the whole -----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY----- text")
		}
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			break
		}
		seen = append(seen, sanitize(block.Type))
	}
	if strings.Contains(block.Type, "ENCRYPTED") || block.Headers["Proc-Type"] != "" {
		return nil, bad("is encrypted: give the key unencrypted (openssl pkcs8 -topk8 -nocrypt)")
	}
	var parsed any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		parsed, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		parsed, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, bad("is a " + block.Type + " block; give a PKCS #8, SEC 1 (EC) or PKCS #1 (RSA) private key")
	}
	if err != nil {
		return nil, bad("(" + block.Type + ") cannot be parsed: the PEM body is damaged or not that kind of key")
	}
	k := &signingKey{alg: alg}
	switch key := parsed.(type) {
	case *ecdsa.PrivateKey:
		want := map[elliptic.Curve]string{elliptic.P256(): "ES256", elliptic.P384(): "ES384", elliptic.P521(): "ES512"}[key.Curve]
		if want == "" {
			return nil, bad("is an EC key on an unsupported curve: use P-256, P-384 or P-521")
		}
		if k.alg == "" {
			k.alg = want
		}
		if k.alg != want {
			return nil, errs.Errorf(errs.Invalid, "oauth", "oauth.signing_algorithm %q does not fit the key, an EC %s key: use %s", alg, key.Curve.Params().Name, want)
		}
		k.key = key
	case *rsa.PrivateKey:
		if key.N.BitLen() < 2048 {
			return nil, bad("is an RSA key shorter than 2048 bits: use a longer key")
		}
		if k.alg == "" {
			k.alg = "RS256"
		}
		if !strings.HasPrefix(k.alg, "RS") && !strings.HasPrefix(k.alg, "PS") {
			return nil, errs.Errorf(errs.Invalid, "oauth", "oauth.signing_algorithm %q does not fit the key, an RSA key: use RS256, RS384, RS512, PS256, PS384 or PS512", alg)
		}
		k.key = key
	case ed25519.PrivateKey:
		if k.alg == "" {
			k.alg = "EdDSA"
		}
		if k.alg != "EdDSA" {
			return nil, errs.Errorf(errs.Invalid, "oauth", "oauth.signing_algorithm %q does not fit the key, an Ed25519 key: use EdDSA", alg)
		}
		k.key = key
	default:
		return nil, bad("is not an EC, RSA or Ed25519 key")
	}
	if _, ok := jwsHash[k.alg]; !ok {
		return nil, errs.Errorf(errs.Invalid, "oauth", "oauth.signing_algorithm %q is not supported: use ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512 or EdDSA", alg)
	}
	return k, nil
}

// sign returns the compact JWS of claims with the header {alg, typ: JWT}.
func (k *signingKey) sign(claims map[string]any) (string, error) {
	return k.signWithHeader(map[string]any{"typ": "JWT"}, claims)
}

// signWithHeader returns the compact JWS of claims with the header hdr
// plus alg (a DPoP proof's typ and jwk, dpop.go).
func (k *signingKey) signWithHeader(header, claims map[string]any) (string, error) {
	h0 := map[string]any{"alg": k.alg}
	for name, v := range header {
		h0[name] = v
	}
	hdr, _ := json.Marshal(h0)
	body, err := json.Marshal(claims)
	if err != nil {
		return "", errs.Errorf(errs.Internal, "oauth", "encoding JWT claims: %v", err)
	}
	input := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(body)
	var sig []byte
	h := jwsHash[k.alg]
	digest := []byte(input)
	if h != 0 {
		hh := h.New()
		hh.Write(digest)
		digest = hh.Sum(nil)
	}
	switch key := k.key.(type) {
	case *ecdsa.PrivateKey:
		// JWS ECDSA signatures are R || S, each the curve's size (RFC 7518
		// §3.4), not ASN.1.
		r, s, err := ecdsa.Sign(rand.Reader, key, digest)
		if err != nil {
			return "", errs.Errorf(errs.Internal, "oauth", "signing a JWT (%s) failed", k.alg)
		}
		size := (key.Curve.Params().BitSize + 7) / 8
		sig = make([]byte, 2*size)
		r.FillBytes(sig[:size])
		s.FillBytes(sig[size:])
	case *rsa.PrivateKey:
		if strings.HasPrefix(k.alg, "PS") {
			sig, err = rsa.SignPSS(rand.Reader, key, h, digest, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		} else {
			sig, err = rsa.SignPKCS1v15(rand.Reader, key, h, digest)
		}
	case ed25519.PrivateKey:
		sig = ed25519.Sign(key, digest)
	}
	if err != nil {
		return "", errs.Errorf(errs.Internal, "oauth", "signing a JWT (%s) failed", k.alg)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
