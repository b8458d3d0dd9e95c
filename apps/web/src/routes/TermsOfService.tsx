export default function TermsOfService() {
  return null;
}
